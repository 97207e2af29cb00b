import { z } from "zod";

export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

/** The environment every Warden process reads; defaults as in docs/configuration.md. */
export const BusConfigSchema = z.object({
  /** Server URL(s), comma-separated. @default "nats://127.0.0.1:4222" */
  NATS_URL: z.string().min(1).default("nats://127.0.0.1:4222"),
  /** Path to a NATS credentials file (JWT + NKey seed); optional for dev servers. */
  NATS_CREDS: z.string().min(1).optional(),
  /** Replicas for streams, KV buckets and the object store (3 on a cluster). @default 1 */
  WARDEN_REPLICAS: z.coerce.number().int().min(1).max(5).default(1),
  /**
   * Retention of WARDEN_CALLS in seconds; 0 keeps everything, else at least the stream's 120 s
   * duplicate window. The default keeps six calendar months (184 days, the longest six months),
   * the least the EU AI Act asks of a deployer's logs, and bounds the server's memory
   * (docs/performance.md). @default 15897600
   */
  WARDEN_STREAM_MAX_AGE_S: z.coerce
    .number()
    .int()
    .min(0)
    .refine((s) => s === 0 || s >= 120, "must be 0 (keep everything) or at least 120 (the stream's duplicate window)")
    .default(15_897_600),
  /** Size cap of WARDEN_CALLS in bytes; -1 is unlimited. @default -1 */
  WARDEN_STREAM_MAX_BYTES: z.coerce.number().int().min(-1).default(-1),
  /** The pino level of {@link createLogger}'s loggers. @default "info" */
  LOG_LEVEL: z.enum(LOG_LEVELS).default("info"),
  /** Serve `/healthz`, `/readyz` and `/metrics` (Prometheus) on this port; 0 picks a free one. @default none (not served) */
  WARDEN_HEALTH_PORT: z.coerce.number().int().min(0).max(65_535).optional(),
  /** The address the health port listens on (0.0.0.0 in a container, for its probes). @default "127.0.0.1" */
  WARDEN_HEALTH_HOST: z.string().min(1).default("127.0.0.1"),
});
export type BusConfig = z.infer<typeof BusConfigSchema>;

/** A bad environment variable: the message names it and its value, in one line. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

/** Parses env with a zod schema; a bad value is a one-line error naming the variable. */
export function parseEnv<S extends z.ZodObject>(schema: S, env: NodeJS.ProcessEnv): z.infer<S> {
  const picked: Record<string, string> = {};
  for (const key of Object.keys(schema.shape)) {
    const v = env[key];
    if (v !== undefined && v !== "") picked[key] = v;
  }
  const r = schema.safeParse(picked);
  if (!r.success) {
    const issue = r.error.issues[0];
    const name = issue?.path.join(".") ?? "?";
    throw new ConfigError(`invalid environment variable ${name}=${JSON.stringify(picked[name] ?? "")}: ${issue?.message ?? "invalid"}`);
  }
  return r.data;
}

/**
 * Reads the bus's variables (`NATS_URL`, `NATS_CREDS`, `WARDEN_REPLICAS`,
 * `WARDEN_STREAM_MAX_AGE_S`, `WARDEN_STREAM_MAX_BYTES`, `LOG_LEVEL`) from `env`, with their
 * defaults; an empty variable counts as unset.
 *
 * @throws {@link ConfigError} naming the first bad variable, e.g.
 *   `invalid environment variable WARDEN_REPLICAS="7": Too big: expected number to be <=5`.
 * @example
 * ```ts
 * const config = loadBusConfig(process.env);
 * const bus = await connectBus(config, "billing-executor");
 * const log = createLogger("billing", config.LOG_LEVEL);
 * ```
 */
export function loadBusConfig(env: NodeJS.ProcessEnv): BusConfig {
  return parseEnv(BusConfigSchema, env);
}
