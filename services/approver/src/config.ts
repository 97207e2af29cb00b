import { BusConfigSchema, parseEnv } from "@warden/bus";
import { z } from "zod";

export const ApproverConfigSchema = BusConfigSchema.extend({
  /**
   * PEM file with the Ed25519 private key grants are signed with; executors pin its public half.
   * When unset a fresh key is made, which no executor has pinned: every grant would be refused.
   */
  WARDEN_APPROVER_SIGNING_KEY_FILE: z.string().min(1).optional(),
  /** How often the sweeper expires overdue approvals and repairs missing decision events. */
  WARDEN_APPROVER_SWEEP_MS: z.coerce.number().int().min(50).max(600_000).default(1_000),
  WARDEN_APPROVER_CONCURRENCY: z.coerce.number().int().min(1).max(1024).default(64),
  /** How long `pending` waits for the approver's read of the stream's ApprovalRequested events to reach the stream's end. */
  WARDEN_APPROVER_INBOX_WAIT_MS: z.coerce.number().int().min(0).max(60_000).default(2_000),
});
export type ApproverConfig = z.infer<typeof ApproverConfigSchema>;

/** The only reader of the environment. */
export function loadConfig(env: NodeJS.ProcessEnv): ApproverConfig {
  return parseEnv(ApproverConfigSchema, env);
}
