import { z } from "zod";
import { PendingApprovalSchema } from "./approval.js";

/**
 * Read models other services read (the projector writes them; the policy and the approver read
 * them). Every model records `seq`, the last stream sequence applied to it.
 */

export const CALL_COUNTERS = [
  "requested",
  /** Calls the policy let through (allow or require_approval): what a run budget counts. */
  "admitted",
  "started",
  "succeeded",
  "failed",
  "rejected",
  "denied",
  "expired",
  "outcome_unknown",
] as const;
export type CallCounter = (typeof CALL_COUNTERS)[number];

export const CallCountersSchema = z.object({
  requested: z.int().nonnegative(),
  admitted: z.int().nonnegative(),
  started: z.int().nonnegative(),
  succeeded: z.int().nonnegative(),
  failed: z.int().nonnegative(),
  rejected: z.int().nonnegative(),
  denied: z.int().nonnegative(),
  expired: z.int().nonnegative(),
  outcome_unknown: z.int().nonnegative(),
});
export type CallCounters = z.infer<typeof CallCountersSchema>;

export const BUDGET_MODEL_KINDS = ["run", "tool", "principal"] as const;

/** `warden_budgets`: `run.<runId>`, `tool.<name>`, `principal.<principal>` -> counters. */
export const BudgetModelSchema = z.object({
  kind: z.enum(BUDGET_MODEL_KINDS),
  /** The runId (correlationId), tool name or principal. */
  name: z.string(),
  counts: CallCountersSchema,
  seq: z.int().nonnegative(),
});
export type BudgetModel = z.infer<typeof BudgetModelSchema>;

export const APPROVAL_INBOX_STATUSES = ["pending", "granted", "denied", "expired", "cancelled"] as const;

/** `warden_approvals`: `<approvalId>` -> the approval as an inbox shows it, with its outcome. */
export const ApprovalInboxRecordSchema = PendingApprovalSchema.extend({
  status: z.enum(APPROVAL_INBOX_STATUSES),
  requestEventId: z.string(),
  decidedBy: z.string().optional(),
  decidedAt: z.string().optional(),
  denialReason: z.string().optional(),
  seq: z.int().nonnegative(),
});
export type ApprovalInboxRecord = z.infer<typeof ApprovalInboxRecordSchema>;

/** `warden_projector` key `cursor`: every read model reflects every event up to `seq`. */
export const ProjectorCursorSchema = z.object({ seq: z.int().nonnegative() });
export type ProjectorCursor = z.infer<typeof ProjectorCursorSchema>;
