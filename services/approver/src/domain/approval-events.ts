import {
  nextCallEvent,
  type ApprovalDenied,
  type ApprovalExpired,
  type ApprovalGranted,
  type ApprovalRequested,
  type DelegationLink,
  type ToolCallRejected,
  type ToolPolicyChecked,
  type EventStamp,
} from "@warden/contracts/events";
import { ARGS_PREVIEW_CHARS } from "@warden/contracts/subjects";
import { wardenError } from "@warden/contracts/errors";
import { type Grade, type Intent, type ToolDescriptor, levelOf } from "@warden/contracts/descriptor";
import { type PolicyDocument } from "@warden/contracts/policy";
import { canonicalJson, type JsonValue } from "@warden/contracts/json";
import { quorumOf } from "@warden/policy-engine";
import { decidersOf, onBehalfOf, riskReasons } from "./approval-card.js";

export type Stamp = EventStamp;

/** How long an approval stays open; a `read` that a rule made wait lives as long as a write's. */
export function approvalTtlSeconds(doc: PolicyDocument, grade: Grade): number {
  return grade === "send" ? doc.approvalTtlSeconds.send : doc.approvalTtlSeconds.write;
}

/** The args as an approver reads them: canonical JSON, cut to ARGS_PREVIEW_CHARS. */
export function argsPreview(args: JsonValue): string {
  const text = canonicalJson(args);
  return text.length <= ARGS_PREVIEW_CHARS ? text : `${text.slice(0, ARGS_PREVIEW_CHARS - 1)}…`;
}

export interface RequestFacts {
  readonly approvalId: string;
  readonly title: string;
  readonly doc: PolicyDocument;
  readonly now: Date;
  /** The registered descriptor (description, flags); absent when the registry does not know it. */
  readonly descriptor?: ToolDescriptor | undefined;
  readonly intent?: Intent | undefined;
  /** The delegating calls above this one, top first. */
  readonly chain?: readonly DelegationLink[];
}

export function approvalRequestedEvent(checked: ToolPolicyChecked, f: RequestFacts, stamp: Stamp): ApprovalRequested {
  const d = checked.data;
  const expiresAt = new Date(f.now.getTime() + approvalTtlSeconds(f.doc, d.grade) * 1000).toISOString();
  const chain = [...(f.chain ?? [])];
  const authority = { grade: d.grade, mode: checked.mode, requester: checked.principal, chain };
  const desc = f.descriptor;
  // the level and quorum come from the registered descriptor; a version the registry does not describe has neither
  const level = desc === undefined ? undefined : levelOf(desc);
  const quorum = quorumOf(f.doc, { tool: checked.tool, grade: d.grade, level, actionType: desc?.actionType, args: d.args });
  const data = {
    approvalId: f.approvalId,
    version: d.version,
    descriptorHash: d.descriptorHash,
    grade: d.grade,
    argsHash: d.argsHash,
    args: d.args,
    argsPreview: argsPreview(d.args),
    title: f.title,
    expiresAt,
    approvers: { human: true, requesterMayConfirm: checked.mode === "human" },
    reason: d.reason,
    ruleIds: [...d.ruleIds],
    policyVersion: d.policyVersion,
    ...(desc === undefined
      ? {}
      : { description: desc.description, flags: { destructive: desc.destructive, openWorld: desc.openWorld, idempotent: desc.idempotent } }),
    ...(f.intent === undefined ? {} : { intent: f.intent }),
    chain,
    onBehalfOf: onBehalfOf(checked.principal, chain),
    ...actsAsOf(desc),
    riskReasons: riskReasons({ grade: d.grade, mode: checked.mode, descriptor: desc, chain }),
    deciders: decidersOf(f.doc, authority).slice(0, 200),
    quorum: quorum.approvers,
    quorumRule: { id: quorum.ruleId, reason: quorum.reason.slice(0, 500) },
    ...(level === undefined ? {} : { level }),
    ...(desc?.actionType === undefined ? {} : { actionType: desc.actionType }),
    ...(desc?.approvalSummary === undefined ? {} : { summaryTemplate: desc.approvalSummary }),
  };
  return nextCallEvent(checked, "ApprovalRequested", data, stamp);
}

/** With whose credentials the tool acts, for the card: nothing for a tool that uses none. */
function actsAsOf(desc: ToolDescriptor | undefined): { actsAs?: "caller" | "service" } {
  if (desc?.actsAs !== undefined) return { actsAs: desc.actsAs };
  return desc?.secrets !== undefined && desc.secrets.length > 0 ? { actsAs: "service" } : {};
}

export function approvalGrantedEvent(requested: ApprovalRequested, grant: ApprovalGranted["data"], stamp: Stamp): ApprovalGranted {
  return nextCallEvent(requested, "ApprovalGranted", grant, stamp);
}

export function approvalDeniedEvent(requested: ApprovalRequested, approver: string, reason: string, stamp: Stamp): ApprovalDenied {
  return nextCallEvent(requested, "ApprovalDenied", { approvalId: requested.data.approvalId, approver, reason }, stamp);
}

export function approvalExpiredEvent(requested: ApprovalRequested, stamp: Stamp): ApprovalExpired {
  return nextCallEvent(requested, "ApprovalExpired", { approvalId: requested.data.approvalId, expiresAt: requested.data.expiresAt }, stamp);
}

/** The refusal of a call whose requester already has as many open approvals as the document allows. */
export function approvalQuotaRejectedEvent(checked: ToolPolicyChecked, open: number, max: number, stamp: Stamp): ToolCallRejected {
  const message = `${checked.principal} has ${open} approvals waiting for a person (approvalQuota.maxOpenPerRequester is ${max}); one must be decided or expire first`;
  return nextCallEvent(checked, "ToolCallRejected", { stage: "approver", error: wardenError("APPROVAL_QUOTA", message, { open, max }) }, stamp);
}
