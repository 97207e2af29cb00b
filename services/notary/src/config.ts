import { BusConfigSchema, parseEnv } from "@warden/bus";
import { z } from "zod";

export const NotaryConfigSchema = BusConfigSchema.extend({
  /** PEM file with the Ed25519 private key checkpoints are signed with; auditors pin its public half. */
  WARDEN_NOTARY_SIGNING_KEY_FILE: z.string().min(1),
  /** Where each checkpoint is also appended (the head log); default heads.jsonl beside the key file. */
  WARDEN_NOTARY_HEAD_LOG: z.string().min(1).optional(),
  /** At most this many messages per checkpoint. */
  WARDEN_NOTARY_MAX_MESSAGES: z.coerce.number().int().min(1).max(100_000).default(1_000),
  /** A message waits at most this long to be sealed. */
  WARDEN_NOTARY_INTERVAL_MS: z.coerce.number().int().min(50).max(3_600_000).default(2_000),
});
export type NotaryConfig = z.infer<typeof NotaryConfigSchema>;

/** The only reader of the environment. */
export function loadConfig(env: NodeJS.ProcessEnv): NotaryConfig {
  return parseEnv(NotaryConfigSchema, env);
}
