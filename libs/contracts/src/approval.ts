import { z } from "zod";
import { ActionTypeSchema, PermissionLevelSchema } from "./action-type.js";
import { canonicalJson } from "./canonical-json.js";
import { ApprovalPreviewSchema, DelegationLinkSchema, ToolFlagsSchema } from "./events.js";
import { IntentSchema } from "./intent.js";
import { JsonValueSchema } from "./json.js";
import { TokenSchema } from "./tokens.js";
import { ArgsConstraintsSchema, SessionGrantRequestSchema, type SessionTerms } from "./session-grant.js";

/** What a person sends on `warden.decide.<approver>.<approvalId>`. */
export const DecisionRequestSchema = z.strictObject({
  decision: z.enum(["grant", "deny"]),
  /** The argsHash the approver saw; a grant for other args is refused. */
  argsHash: z.string(),
  reason: z.string().max(2000).optional(),
  /**
   * Grant these args instead of the requested ones (a grant only): re-validated against the
   * tool's schema; the grant binds their hash and the executor runs them.
   */
  args: JsonValueSchema.optional(),
  /**
   * Also grant "for the session" (a grant only): later calls of the same principal, mode and tool
   * version whose args meet `session.args` are granted without asking, until `ttlSeconds` from now
   * or a revoke. The policy document's `sessionGrants` says for which grades, and how long at most.
   */
  session: SessionGrantRequestSchema.optional(),
});
export type DecisionRequest = z.infer<typeof DecisionRequestSchema>;

export const DECISION_REFUSALS = [
  "UNKNOWN_APPROVAL",
  "EXPIRED",
  "ALREADY_DECIDED",
  "ARGS_HASH_MISMATCH",
  "NOT_AUTHORISED",
  "MALFORMED",
  "INVALID_ARGS",
  "SESSION_NOT_ALLOWED",
  "EDIT_NOT_ALLOWED",
] as const;

export const DecisionReplySchema = z.discriminatedUnion("ok", [
  z.object({
    ok: z.literal(true),
    approvalId: z.string(),
    callId: z.string(),
    decision: z.enum(["grant", "deny"]),
    /** The args hash the grant binds (the edited args' when the grant edited them). */
    argsHash: z.string().optional(),
    /** For an approval that needs a quorum: the distinct grants so far and how many it needs (it runs at `need`). */
    quorum: z.object({ have: z.int(), need: z.int() }).optional(),
    /** For a grant for the session: the session grant's id (this call's id) and when it ends. */
    session: z.object({ grantId: z.string(), expiresAt: z.string() }).optional(),
  }),
  z.object({
    ok: z.literal(false),
    refusal: z.enum(DECISION_REFUSALS),
    message: z.string(),
    /** For a decision that came too late: the decision already taken, by whom and when. */
    decided: z
      .object({ decision: z.enum(["grant", "deny", "expire", "cancel"]), by: z.string().optional(), at: z.string() })
      .optional(),
  }),
]);
export type DecisionReply = z.infer<typeof DecisionReplySchema>;

export interface GrantStatement {
  readonly callId: string;
  readonly approvalId: string;
  readonly argsHash: string;
  readonly descriptorHash: string;
  readonly version: string;
  readonly approver: string;
  readonly expiresAt: string;
  readonly nonce: string;
  /** Set on a grant of edited args: the hash of the args that were requested. */
  readonly originalArgsHash?: string;
  /** Set on a grant that completed a quorum: the other approvers, in the order they granted. */
  readonly coApprovers?: readonly string[];
  /** Set on a grant that also grants for the session: its terms. */
  readonly session?: SessionTerms;
  /** Set on a grant a session grant gave: that session grant's id. */
  readonly bySession?: string;
  /** Set on the grant of an L5 call with a dry run on its card: the preview's hash. */
  readonly previewHash?: string;
}

/** The bytes an approver signs and an executor verifies. */
export function grantSigningPayload(s: GrantStatement): Buffer {
  return Buffer.from(
    canonicalJson({
      approvalId: s.approvalId,
      approver: s.approver,
      argsHash: s.argsHash,
      ...(s.bySession === undefined ? {} : { bySession: s.bySession }),
      ...(s.coApprovers === undefined ? {} : { coApprovers: [...s.coApprovers] }),
      callId: s.callId,
      descriptorHash: s.descriptorHash,
      expiresAt: s.expiresAt,
      nonce: s.nonce,
      ...(s.previewHash === undefined ? {} : { previewHash: s.previewHash }),
      // only an edited grant signs it, so grants without an edit verify as they always did
      ...(s.originalArgsHash === undefined ? {} : { originalArgsHash: s.originalArgsHash }),
      ...(s.session === undefined ? {} : { session: { args: s.session.args, expiresAt: s.session.expiresAt, ...(s.session.argNames === undefined ? {} : { argNames: [...s.session.argNames] }) } }),
      version: s.version,
    }),
  );
}

/** A pending approval as an inbox lists it. */
export const PendingApprovalSchema = z.object({
  approvalId: z.string(),
  callId: z.string(),
  domain: z.string(),
  tool: z.string(),
  title: z.string(),
  grade: z.string(),
  principal: z.string(),
  mode: z.string(),
  argsHash: z.string(),
  argsPreview: z.string(),
  /** The tool's one-line summary of the call, rendered from the args the grant binds (when the tool declares one). */
  summary: z.string().optional(),
  /** The full args the grant binds (argsPreview is cut). */
  args: JsonValueSchema.optional(),
  description: z.string().optional(),
  /** The tool's own dry run of the call (its claim of what would change), or why there is none. */
  preview: ApprovalPreviewSchema.optional(),
  flags: ToolFlagsSchema.optional(),
  intent: IntentSchema.optional(),
  chain: z.array(DelegationLinkSchema).optional(),
  onBehalfOf: z.string().optional(),
  /** `caller`: the tool acts with the credentials of the principal the call runs for; `service`: with its executor's. */
  actsAs: z.enum(["caller", "service"]).optional(),
  /** The policy rules and their reason (`reason`) that asked for a person. */
  ruleIds: z.array(z.string()).optional(),
  policyVersion: z.string().optional(),
  riskReasons: z.array(z.string()).optional(),
  deciders: z.array(z.string()).optional(),
  quorum: z.int().optional(),
  /** What set the quorum (an `approvalQuorum` entry or a default) and why. */
  quorumRule: z.object({ id: z.string(), reason: z.string() }).optional(),
  /** The tool's permission level L0–L5 and its action type (when declared). */
  level: PermissionLevelSchema.optional(),
  actionType: ActionTypeSchema.optional(),
  /** Grants given so far towards the quorum. */
  grantedBy: z.array(z.object({ approver: z.string(), at: z.string() })).optional(),
  reason: z.string(),
  requestedAt: z.string(),
  expiresAt: z.string(),
  approvers: z.object({ human: z.boolean(), requesterMayConfirm: z.boolean() }),
  /** No executor of the call's domain was alive when it was asked: a grant would wait for one. */
  noLiveExecutor: z.literal(true).optional(),
  /** Whether the policy lets this call be approved for the session, and why not: a client offers only what would be accepted. */
  sessionGrant: z.object({ allowed: z.boolean(), why: z.string().optional() }).optional(),
});
export type PendingApproval = z.infer<typeof PendingApprovalSchema>;

/** What a requester (or an operator) sends on `warden.cancel.<principal>.<callId>`. */
export const CancelRequestSchema = z.strictObject({
  reason: z.string().max(2000).optional(),
  /** Revoke the session grant made on this call instead (by the person who made it, or an operator); the call itself is left as it is. */
  session: z.literal(true).optional(),
});
export type CancelRequest = z.infer<typeof CancelRequestSchema>;

export const CANCEL_REFUSALS = ["NOT_FOUND", "NOT_AUTHORISED", "ALREADY_STARTED", "ALREADY_ENDED", "MALFORMED"] as const;

export const CancelReplySchema = z.discriminatedUnion("ok", [
  z.object({ ok: z.literal(true), callId: z.string(), domain: z.string(), by: z.string(), at: z.string() }),
  z.object({ ok: z.literal(false), refusal: z.enum(CANCEL_REFUSALS), message: z.string() }),
]);
export type CancelReply = z.infer<typeof CancelReplySchema>;

/**
 * What `warden.approver.pending.<approver>` is asked: the approvals to decide (default), the
 * session grants in force, the approvals this person decided (DecidedApproval[]), or the timeline of one call this person decided or may decide (its
 * events in stream order, as an OwnCallTrace: what the card showed them, and what came of it).
 */
export const PendingRequestSchema = z.union([
  z.strictObject({ list: z.enum(["approvals", "sessions", "decided"]).optional() }),
  z.strictObject({ list: z.literal("trace"), callId: TokenSchema }),
]);
export type PendingRequest = z.infer<typeof PendingRequestSchema>;

/** An approval a person granted (alone or in a quorum) or denied, as their inbox's Decided list shows it. */
export const DecidedApprovalSchema = z.object({
  approvalId: TokenSchema,
  callId: TokenSchema,
  domain: TokenSchema,
  tool: z.string(),
  title: z.string(),
  principal: TokenSchema,
  argsPreview: z.string(),
  outcome: z.enum(["granted", "denied"]),
  /** Who completed the decision (in a quorum, the last grant). */
  decidedBy: TokenSchema,
  decidedAt: z.iso.datetime(),
  /** A denial's reason. */
  reason: z.string().nullable(),
});
export type DecidedApproval = z.infer<typeof DecidedApprovalSchema>;

/**
 * A session grant in force, as `warden sessions` lists it: the person who made it sees theirs, an
 * operator every one. Its id is the callId it was granted on (what `warden revoke ID --session` takes).
 */
export const SessionGrantViewSchema = z.object({
  grantId: z.string(),
  approvalId: z.string(),
  domain: z.string(),
  tool: z.string(),
  version: z.string(),
  principal: z.string(),
  mode: z.string(),
  approver: z.string(),
  grantedAt: z.string(),
  expiresAt: z.string(),
  args: ArgsConstraintsSchema,
  /** The constraints in words (`customerId = "C-1"`, or `any args`). */
  covers: z.string(),
});
export type SessionGrantView = z.infer<typeof SessionGrantViewSchema>;
