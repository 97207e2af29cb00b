import { kvGetJson, type Bus, type JsonEntry, type KV } from "@warden/bus";
import { BUCKET_BUDGETS, rateBucketKey } from "@warden/contracts/subjects";
import { createTurns } from "@warden/service-kit";
import { takeToken, TokenBucketStateSchema, type RateBucket, type TokenBucketState } from "@warden/policy-engine";
import { compareAndSet } from "./kv-compare-and-set.js";

const MAX_CAS_ATTEMPTS = 50;

/** A bucket that had no token: which rule, and when to ask again. */
export interface RateRefusal {
  readonly bucket: RateBucket;
  readonly retryAfterMs: number;
}

export interface RateLimiter {
  /**
   * Takes one token from each bucket in order; the first empty one refuses the call (the tokens
   * already taken from earlier buckets stay spent: a refused call still arrived).
   */
  take(principal: string, buckets: readonly RateBucket[]): Promise<RateRefusal | undefined>;
}

/**
 * Token buckets shared by every policy copy, in `warden_budgets` (keys `rate.<principal>[.<bucket>]`),
 * each take a compare-and-set. Copies share the durable, so one principal's calls land on any copy:
 * a per-copy bucket with the limit divided by the copies would refuse a principal whose calls
 * happen to land on one copy. Within a copy, takes of one key go one at a time from the last
 * entry it wrote, so a lone copy pays one KV write per bucket and call, and a conflict (another
 * copy took a token) costs a read.
 */
export async function openRateLimiter(bus: Bus, now: () => number = Date.now): Promise<RateLimiter> {
  const kv: KV = await bus.kvm.open(BUCKET_BUDGETS);
  const last = new Map<string, JsonEntry<TokenBucketState>>();

  const takeOne = async (key: string, bucket: RateBucket): Promise<number | undefined> => {
    let current = last.get(key) ?? (await kvGetJson(kv, key, TokenBucketStateSchema));
    for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
      const taken = takeToken(current?.value, bucket.limit, now());
      // other copies only take tokens, so a stale cached entry holds more than the bucket, never less
      if (!taken.ok) return taken.retryAfterMs;
      const revision = await compareAndSet(kv, key, taken.next, current?.revision);
      if (revision !== undefined) {
        last.set(key, { key, value: taken.next, revision });
        return undefined;
      }
      last.delete(key);
      current = await kvGetJson(kv, key, TokenBucketStateSchema);
    }
    throw new Error(`rate bucket ${key} is contended or unreadable after ${MAX_CAS_ATTEMPTS} attempts`);
  };

  const turns = createTurns();

  return {
    async take(principal, buckets) {
      for (const bucket of buckets) {
        const key = rateBucketKey(principal, bucket.bucket);
        const retryAfterMs = await turns.run(key, () => takeOne(key, bucket));
        if (retryAfterMs !== undefined) return { bucket, retryAfterMs };
      }
      return undefined;
    },
  };
}
