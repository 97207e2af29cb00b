import { z } from "zod";
import type { RateLimit } from "@warden/contracts/policy";

/** A bucket as stored: tokens left at `atMs` (the clock of the policy copy that last took one). */
export const TokenBucketStateSchema = z.object({
  tokens: z.number().nonnegative(),
  atMs: z.number().nonnegative(),
});
export type TokenBucketState = z.infer<typeof TokenBucketStateSchema>;

export type TokenTaken =
  | { readonly ok: true; readonly next: TokenBucketState }
  | { readonly ok: false; readonly retryAfterMs: number };

/**
 * Takes one token, refilling at `ratePerSecond` since the bucket was last written (a new bucket is
 * full). Another copy's clock may be a little ahead, so elapsed time never counts below zero.
 * An empty bucket says how long until it holds a whole token.
 */
export function takeToken(state: TokenBucketState | undefined, limit: RateLimit, nowMs: number): TokenTaken {
  const elapsedMs = state === undefined ? 0 : Math.max(0, nowMs - state.atMs);
  const tokens = state === undefined ? limit.burst : Math.min(limit.burst, state.tokens + (elapsedMs * limit.ratePerSecond) / 1000);
  if (tokens >= 1) return { ok: true, next: { tokens: tokens - 1, atMs: Math.max(nowMs, state?.atMs ?? 0) } };
  return { ok: false, retryAfterMs: Math.ceil(((1 - tokens) * 1000) / limit.ratePerSecond) };
}
