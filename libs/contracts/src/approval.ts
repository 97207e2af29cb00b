import { z } from "zod";
import { canonicalJson } from "./canonical-json.js";

/** What a person sends on `warden.decide.<approver>.<approvalId>`. */
export const DecisionRequestSchema = z.strictObject({
  decision: z.enum(["grant", "deny"]),
  /** The argsHash the approver saw; a grant for other args is refused. */
  argsHash: z.string(),
  reason: z.string().max(2000).optional(),
});
export type DecisionRequest = z.infer<typeof DecisionRequestSchema>;

export const DECISION_REFUSALS = [
  "UNKNOWN_APPROVAL",
  "EXPIRED",
  "ALREADY_DECIDED",
  "ARGS_HASH_MISMATCH",
  "NOT_AUTHORISED",
  "MALFORMED",
] as const;

export const DecisionReplySchema = z.discriminatedUnion("ok", [
  z.object({ ok: z.literal(true), approvalId: z.string(), callId: z.string(), decision: z.enum(["grant", "deny"]) }),
  z.object({ ok: z.literal(false), refusal: z.enum(DECISION_REFUSALS), message: z.string() }),
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
}

/** The bytes an approver signs and an executor verifies. */
export function grantSigningPayload(s: GrantStatement): Buffer {
  return Buffer.from(
    canonicalJson({
      approvalId: s.approvalId,
      approver: s.approver,
      argsHash: s.argsHash,
      callId: s.callId,
      descriptorHash: s.descriptorHash,
      expiresAt: s.expiresAt,
      nonce: s.nonce,
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
  reason: z.string(),
  requestedAt: z.string(),
  expiresAt: z.string(),
  approvers: z.object({ human: z.boolean(), requesterMayConfirm: z.boolean() }),
});
export type PendingApproval = z.infer<typeof PendingApprovalSchema>;
