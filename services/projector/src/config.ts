import { BusConfigSchema, parseEnv } from "@warden/bus";
import { z } from "zod";

export const ProjectorConfigSchema = BusConfigSchema.extend({
  /** Events applied per batch; also the consumer's max un-acked, so copies take turns in order. */
  WARDEN_PROJECTOR_BATCH: z.coerce.number().int().min(1).max(10_000).default(256),
  /** How long a batch may stay un-acked before the server hands it to another copy. */
  WARDEN_PROJECTOR_ACK_WAIT_MS: z.coerce.number().int().min(500).max(600_000).default(10_000),
  /** A standby takes over when the projecting copy has not renewed its lease for this long. */
  WARDEN_PROJECTOR_LEASE_MS: z.coerce.number().int().min(200).max(600_000).default(5_000),
});
export type ProjectorConfig = z.infer<typeof ProjectorConfigSchema>;

/** The only reader of the environment. */
export function loadConfig(env: NodeJS.ProcessEnv): ProjectorConfig {
  return parseEnv(ProjectorConfigSchema, env);
}
