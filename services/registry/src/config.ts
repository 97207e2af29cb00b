import { BusConfigSchema, parseEnv } from "@warden/bus";
import { z } from "zod";

export const RegistryConfigSchema = BusConfigSchema.extend({
  /** Requests the validation stage works on at once. */
  WARDEN_REGISTRY_CONCURRENCY: z.coerce.number().int().min(1).max(1024).default(64),
  /** Views hide the tools of domains with no live executor (`no_executor`), as the policy refuses their calls. */
  WARDEN_REGISTRY_HIDE_DOWN_DOMAINS: z.enum(["true", "false"]).default("true").transform((v) => v === "true"),
});
export type RegistryConfig = z.infer<typeof RegistryConfigSchema>;

/** The only reader of the environment; a bad value is a one-line error naming the variable. */
export function loadConfig(env: NodeJS.ProcessEnv): RegistryConfig {
  return parseEnv(RegistryConfigSchema, env);
}
