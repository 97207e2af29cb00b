import { requestRpc, type Bus, type Logger } from "@warden/bus";
import { fail, ok, type Outcome } from "@warden/contracts/errors";
import type { z } from "zod";

/** How long one request waits for an answer before it counts as UNAVAILABLE. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 5_000;
const MIN_REQUEST_TIMEOUT_MS = 100;
const FIRST_BACKOFF_MS = 100;
const MAX_BACKOFF_MS = 2_000;

export interface PatienceOptions {
  /**
   * How long to keep asking again while the answer is an error marked `retryable` (no responder
   * yet, a timeout, a broken service); 0 asks once. A refusal is returned at once.
   * @default 0
   */
  readonly patienceMs?: number;
  /**
   * How long one attempt waits for its answer.
   * @default 5_000 ({@link DEFAULT_REQUEST_TIMEOUT_MS})
   */
  readonly requestTimeoutMs?: number;
  /** Told about each retry, so a slow start shows why it waits. @default no logging */
  readonly log?: Logger;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Sends a request and validates the reply's value. The one retry rule of the registry client:
 * an error is asked again only when `error.retryable` is true, with doubling backoff, until the
 * patience runs out; anything else (a refusal, a forbidden subject) comes back at once.
 */
export async function requestWithPatience<S extends z.ZodType>(
  bus: Bus,
  subject: string,
  body: unknown,
  schema: S,
  opts: PatienceOptions = {},
): Promise<Outcome<z.infer<S>>> {
  const patienceMs = opts.patienceMs ?? 0;
  const requestTimeoutMs = opts.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const deadline = Date.now() + patienceMs;
  let backoff = FIRST_BACKOFF_MS;
  for (let attempt = 1; ; attempt++) {
    const left = deadline - Date.now();
    // a patient caller does not wait past its deadline for one answer; an impatient one waits one full attempt
    const timeout = patienceMs > 0 ? Math.max(MIN_REQUEST_TIMEOUT_MS, Math.min(requestTimeoutMs, left)) : requestTimeoutMs;
    const reply = await requestRpc(bus, subject, body, timeout);
    if (reply.ok) {
      const parsed = schema.safeParse(reply.value);
      return parsed.success ? ok(parsed.data) : fail("INTERNAL", `unexpected reply on ${subject}: ${parsed.error.issues[0]?.message ?? "invalid"}`);
    }
    const remaining = deadline - Date.now();
    if (!reply.error.retryable) return reply;
    if (remaining <= 0) {
      return attempt === 1 ? reply : { ok: false, error: { ...reply.error, message: `gave up after ${attempt} attempts: ${reply.error.message}` } };
    }
    opts.log?.info({ subject, code: reply.error.code, attempt, retryInMs: Math.min(backoff, remaining) }, "no answer yet, asking again");
    await sleep(Math.min(backoff, remaining));
    backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
  }
}
