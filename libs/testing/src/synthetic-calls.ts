import { sign } from "node:crypto";
import { eventHash, type WardenEvent } from "@warden/contracts/events";
import { type CallMode, type Grade } from "@warden/contracts/descriptor";
import { grantSigningPayload, grantStatementOf } from "@warden/contracts/approval";
import { argsHash } from "@warden/contracts/json";
import { approverKey } from "./approver-key.js";

/**
 * The approver key synthetic grants are signed with: pin its public half wherever a synthetic
 * history is verified (an executor's `approverKeys`, `audit --verify`'s approver keys).
 */
export const SYNTHETIC_APPROVER_KEY = approverKey();

/** The ways a call can go, as the services would write them. */
export const SYNTHETIC_OUTCOMES = [
  "succeeded",
  "failed",
  "rejected",
  "policy_denied",
  "approved",
  "approval_denied",
  "expired",
  "crashed",
  "rerun",
] as const;
export type SyntheticOutcome = (typeof SYNTHETIC_OUTCOMES)[number];

export interface SyntheticCallOptions {
  readonly callId: string;
  readonly outcome: SyntheticOutcome;
  readonly runId?: string;
  readonly principal?: string;
  readonly mode?: CallMode;
  readonly tool?: string;
  readonly grade?: Grade;
  readonly approver?: string;
  readonly parentCallId?: string;
  /** Time of the first event; each next event is a few milliseconds later. */
  readonly at?: Date;
  readonly args?: Record<string, unknown>;
}

const HASH = (c: string) => `sha256:${c.repeat(64)}`;

/**
 * One call's events, in order, as registry, policy, approver and executor write them: for
 * crafted streams in tests and for benches. Ids are derived from the callId, so a chain is
 * reproducible; each event names its cause by id and hash, as the writers do.
 */
export function syntheticCall(o: SyntheticCallOptions): WardenEvent[] {
  const tool = o.tool ?? "kb.search";
  const domain = tool.split(".")[0]!;
  const approvalNeeded = o.outcome === "approved" || o.outcome === "approval_denied" || o.outcome === "expired";
  const grade: Grade = o.grade ?? (approvalNeeded ? "send" : "read");
  const mode: CallMode = o.mode ?? (approvalNeeded ? "plan" : "llm");
  const args = o.args ?? { query: `q-${o.callId}` };
  const hash = argsHash(args);
  const t0 = (o.at ?? new Date("2030-01-01T00:00:00.000Z")).getTime();
  let step = 0;
  const envelope = (type: WardenEvent["type"], cause: WardenEvent | null) => ({
    v: 1 as const,
    type,
    eventId: `${o.callId}-e${step}`,
    callId: o.callId,
    domain,
    tool,
    principal: o.principal ?? "bot",
    mode,
    ts: new Date(t0 + 3 * step++).toISOString(),
    causationId: cause === null ? null : cause.eventId,
    causeHash: cause === null ? null : eventHash(cause),
    correlationId: o.runId ?? "run1",
    ...(o.parentCallId === undefined ? {} : { parentCallId: o.parentCallId }),
  });
  const bound = { version: "1.0.0", descriptorHash: HASH("d"), grade, argsHash: hash };
  const out: WardenEvent[] = [];
  const push = (e: WardenEvent) => {
    out.push(e);
    return e;
  };

  const requested = push({ ...envelope("ToolCallRequested", null), type: "ToolCallRequested", data: { args, scope: null, flags: {} } } as WardenEvent);
  if (o.outcome === "rejected") {
    push({
      ...envelope("ToolCallRejected", requested),
      type: "ToolCallRejected",
      data: { stage: "registry", error: { code: "UNKNOWN_TOOL", message: `no tool ${tool}`, retryable: false } },
    } as WardenEvent);
    return out;
  }
  const validated = push({ ...envelope("ToolArgsValidated", requested), type: "ToolArgsValidated", data: { ...bound, args, scope: null, flags: {} } } as WardenEvent);
  const decision = o.outcome === "policy_denied" ? "deny" : approvalNeeded ? "require_approval" : "allow";
  const ruleIds = [decision === "deny" ? "gate.scope" : `default.${grade}.${mode}`];
  const checked = push({
    ...envelope("ToolPolicyChecked", validated),
    type: "ToolPolicyChecked",
    data: { ...bound, args, decision, reason: `${decision} by ${ruleIds[0]}`, ruleIds, policyVersion: "p1" },
  } as WardenEvent);
  if (decision === "deny") {
    push({
      ...envelope("ToolCallRejected", checked),
      type: "ToolCallRejected",
      data: { stage: "policy", error: { code: "POLICY_DENIED", message: "denied", retryable: false }, ruleIds, policyVersion: "p1" },
    } as WardenEvent);
    return out;
  }
  let authorizer = checked;
  if (approvalNeeded) {
    const approvalId = `${o.callId}-a`;
    const requestedAt = t0 + 3 * step;
    const approval = push({
      ...envelope("ApprovalRequested", checked),
      type: "ApprovalRequested",
      data: {
        ...bound,
        approvalId,
        argsPreview: JSON.stringify(args),
        args,
        title: tool,
        expiresAt: new Date(requestedAt + 60_000).toISOString(),
        approvers: { human: true, requesterMayConfirm: mode === "human" },
        reason: "a person must confirm",
        ruleIds,
        policyVersion: "p1",
      },
    } as WardenEvent);
    const approver = o.approver ?? "alice";
    if (o.outcome === "approval_denied") {
      push({ ...envelope("ApprovalDenied", approval), type: "ApprovalDenied", data: { approvalId, approver, reason: "no" } } as WardenEvent);
      return out;
    }
    if (o.outcome === "expired") {
      push({ ...envelope("ApprovalExpired", approval), type: "ApprovalExpired", data: { approvalId, expiresAt: new Date(requestedAt + 60_000).toISOString() } } as WardenEvent);
      return out;
    }
    const grantedAt = t0 + 3 * step;
    const grant = {
      approvalId,
      approver,
      argsHash: hash,
      descriptorHash: bound.descriptorHash,
      version: bound.version,
      grantedAt: new Date(grantedAt).toISOString(),
      expiresAt: new Date(grantedAt + 600_000).toISOString(),
      nonce: `${o.callId}-n`,
      keyId: SYNTHETIC_APPROVER_KEY.keyId,
    };
    const signature = sign(null, grantSigningPayload(grantStatementOf(o.callId, grant)), SYNTHETIC_APPROVER_KEY.privateKey).toString("base64");
    authorizer = push({ ...envelope("ApprovalGranted", approval), type: "ApprovalGranted", data: { ...grant, signature } } as WardenEvent);
  }
  const startedTs = t0 + 3 * step;
  const started = push({
    ...envelope("ToolCallStarted", authorizer),
    type: "ToolCallStarted",
    data: {
      executorId: "ex1",
      version: bound.version,
      descriptorHash: bound.descriptorHash,
      argsHash: hash,
      authorizedBy: { type: authorizer.type as "ToolPolicyChecked" | "ApprovalGranted", eventId: authorizer.eventId },
      deadline: new Date(startedTs + 10_000).toISOString(),
    },
  } as WardenEvent);
  if (o.outcome === "crashed") {
    push({
      ...envelope("ToolCallOutcomeUnknown", started),
      type: "ToolCallOutcomeUnknown",
      data: { reason: "the executor left no result by its deadline", startedEventId: started.eventId, executorId: "ex2" },
    } as WardenEvent);
    return out;
  }
  const ok = o.outcome !== "failed";
  push({
    ...envelope("ToolCallFinished", started),
    type: "ToolCallFinished",
    data: {
      ok,
      ...(ok ? { output: { hits: [`result of ${o.callId}`] } } : { error: { code: "HANDLER_ERROR", message: "boom", retryable: true } }),
      truncated: false,
      outputBytes: ok ? 40 : 0,
      artifacts: [],
      durationMs: 1.5,
      executorId: o.outcome === "rerun" ? "ex2" : "ex1",
      attempt: o.outcome === "rerun" ? 2 : 1,
    },
  } as WardenEvent);
  return out;
}
