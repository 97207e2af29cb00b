import { ApprovalGrantedSchema, ApprovalRequestedSchema, type ApprovalRequested } from "@warden/contracts/events";
import { TokenSchema } from "@warden/contracts/subjects";
import { CallModeSchema, GradeSchema } from "@warden/contracts/descriptor";
import { renderApprovalSummary, type PendingApproval } from "@warden/contracts/approval";
import { JsonValueSchema } from "@warden/contracts/json";
import { z } from "zod";
import { argsPreview } from "./approval-events.js";

export const APPROVAL_STATUSES = ["pending", "granted", "denied", "expired"] as const;

const DecisionMadeSchema = z.discriminatedUnion("decision", [
  z.object({
    decision: z.literal("grant"),
    approver: TokenSchema,
    decidedAt: z.iso.datetime(),
    /** The signed grant, kept so a missing ApprovalGranted can be appended again as it was. */
    grant: ApprovalGrantedSchema.shape.data,
  }),
  z.object({ decision: z.literal("deny"), approver: TokenSchema, decidedAt: z.iso.datetime(), reason: z.string() }),
]);
export type DecisionMade = z.infer<typeof DecisionMadeSchema>;

/**
 * The approver's inbox record in `warden_approvals` under the approvalId. Its KV revision is what
 * makes a decision single-use: every change from pending is a compare-and-set.
 */
export const ApprovalRecordSchema = z.object({
  approvalId: TokenSchema,
  callId: TokenSchema,
  domain: TokenSchema,
  tool: z.string(),
  title: z.string(),
  grade: GradeSchema,
  principal: TokenSchema,
  mode: CallModeSchema,
  argsHash: z.string(),
  argsPreview: z.string(),
  reason: z.string(),
  requestedAt: z.iso.datetime(),
  expiresAt: z.iso.datetime(),
  approvers: ApprovalRequestedSchema.shape.data.shape.approvers,
  /** The ApprovalRequested this record belongs to; decision events answer it. */
  requestEventId: TokenSchema,
  status: z.enum(APPROVAL_STATUSES),
  /** Distinct grants needed (the card's quorum); 1 when absent. */
  quorum: z.int().min(1).optional(),
  /** Grants given so far towards a quorum, in order; the approval stays pending until the last. */
  votes: z.array(z.object({ approver: TokenSchema, at: z.iso.datetime(), argsHash: z.string(), args: JsonValueSchema.optional() })).optional(),
  decision: DecisionMadeSchema.optional(),
  expiredAt: z.iso.datetime().optional(),
});
export type ApprovalRecord = z.infer<typeof ApprovalRecordSchema>;

/** The pending record of a request, built from the event itself so either can be rebuilt from it. */
export function recordOf(requested: ApprovalRequested): ApprovalRecord {
  const d = requested.data;
  return {
    ...requestOf(requested),
    argsPreview: d.argsPreview,
    requestEventId: requested.eventId,
    status: "pending",
    ...(d.quorum === undefined || d.quorum === 1 ? {} : { quorum: d.quorum }),
  };
}

/** What the record and the pending list both take from the request as it is. */
function requestOf(requested: ApprovalRequested) {
  const d = requested.data;
  return {
    approvalId: d.approvalId,
    callId: requested.callId,
    domain: requested.domain,
    tool: requested.tool,
    title: d.title,
    grade: d.grade,
    principal: requested.principal,
    mode: requested.mode,
    argsHash: d.argsHash,
    reason: d.reason,
    requestedAt: requested.ts,
    expiresAt: d.expiresAt,
    approvers: d.approvers,
  };
}

export function isOverdue(record: { readonly expiresAt: string }, now: Date): boolean {
  return Date.parse(record.expiresAt) <= now.getTime();
}

/**
 * An ApprovalRequested as the pending list shows it. The preview is made again from the args
 * (whose hash the reader has checked), so what a person reads is what the grant binds.
 */
export function pendingApprovalOf(requested: ApprovalRequested, votes: ApprovalRecord["votes"] = []): PendingApproval {
  const d = requested.data;
  return {
    ...requestOf(requested),
    argsPreview: argsPreview(d.args),
    // rendered from the args the grant binds, as the preview is: never text the event carried
    ...(d.summaryTemplate === undefined ? {} : { summary: renderApprovalSummary(d.summaryTemplate, d.args) }),
    args: d.args,
    ...(d.description === undefined ? {} : { description: d.description }),
    ...(d.preview === undefined ? {} : { preview: d.preview }),
    ...(d.flags === undefined ? {} : { flags: d.flags }),
    ...(d.intent === undefined ? {} : { intent: d.intent }),
    ...(d.chain === undefined ? {} : { chain: d.chain }),
    onBehalfOf: d.onBehalfOf ?? requested.principal,
    ...(d.actsAs === undefined ? {} : { actsAs: d.actsAs }),
    ruleIds: d.ruleIds,
    policyVersion: d.policyVersion,
    ...(d.riskReasons === undefined ? {} : { riskReasons: d.riskReasons }),
    ...(d.deciders === undefined ? {} : { deciders: d.deciders }),
    quorum: d.quorum ?? 1,
    ...(d.quorumRule === undefined ? {} : { quorumRule: d.quorumRule }),
    ...(d.level === undefined ? {} : { level: d.level }),
    ...(d.actionType === undefined ? {} : { actionType: d.actionType }),
    ...(votes.length === 0 ? {} : { grantedBy: votes.map((v) => ({ approver: v.approver, at: v.at })) }),
    ...(d.noLiveExecutor === true ? { noLiveExecutor: true as const } : {}),
  };
}
