import { BusConfigSchema, parseEnv } from "@warden/bus";
import { z } from "zod";

export const PolicyConfigSchema = BusConfigSchema.extend({
  /** Calls decided at once by this process. */
  WARDEN_POLICY_CONCURRENCY: z.coerce.number().int().min(1).max(1024).default(64),
  /** Refuse calls that would run now to a domain with no live executor (UNAVAILABLE) instead of letting them wait for one. */
  WARDEN_POLICY_REQUIRE_LIVE_EXECUTOR: z.enum(["true", "false"]).default("true").transform((v) => v === "true"),
});
export type PolicyConfig = z.infer<typeof PolicyConfigSchema>;

/** The only reader of the environment. */
export function loadConfig(env: NodeJS.ProcessEnv): PolicyConfig {
  return parseEnv(PolicyConfigSchema, env);
}
