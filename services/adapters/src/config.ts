import { BusConfigSchema, parseEnv } from "@warden/bus";
import { z } from "zod";

export const AdaptersConfigSchema = BusConfigSchema.extend({
  /** The folder of tool manifests (YAML or JSON), one domain each. */
  WARDEN_MANIFESTS_DIR: z.string().min(1).default("manifests"),
  /** A folder of skill folders (each with a SKILL.md) whose scripts run as tools; unset: none. */
  WARDEN_SKILLS_DIR: z.string().min(1).optional(),
  /** A YAML or JSON file of `key: value` secrets that manifests name with `file: key`. */
  WARDEN_SECRETS_FILE: z.string().min(1).optional(),
  /** As root, the unprivileged uid every tool's sandbox runs as (its writable roots must be this user's); unset: the adapters' own, in a user namespace. */
  WARDEN_SANDBOX_UID: z.coerce.number().int().min(1).max(4_294_967_294).optional(),
  /** Calls each domain's executor runs at once per stage. */
  WARDEN_ADAPTERS_CONCURRENCY: z.coerce.number().int().min(1).max(1024).default(16),
});
export type AdaptersConfig = z.infer<typeof AdaptersConfigSchema>;

/** Reads the service's settings; a bad value is a one-line error naming the variable. */
export function loadConfig(env: NodeJS.ProcessEnv): AdaptersConfig {
  return parseEnv(AdaptersConfigSchema, env);
}
