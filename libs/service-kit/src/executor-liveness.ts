import type { Bus, KV, Logger } from "@warden/bus";
import { BUCKET_EXECUTORS } from "@warden/contracts/subjects";

/** A live domain is believed live this long before its heartbeat is read again (the hot path reads rarely). */
const ALIVE_CACHE_MS = 1_000;

/**
 * Whether a domain has a live executor: its key in `warden_executors` exists (each executor writes
 * it every few seconds; the bucket's max age, on the server's clock, drops it a few heartbeats
 * after the last one). A live answer is kept for a second; a dead one is read again every time,
 * so an executor that has just started counts at once.
 */
export interface ExecutorLiveness {
  isAlive(domain: string): Promise<boolean>;
}

/**
 * Opens the heartbeat bucket. Without it (a topology provisioned before heartbeats) every domain
 * counts as live, as before, and a warning says why.
 */
export async function openExecutorLiveness(bus: Bus, log: Logger): Promise<ExecutorLiveness> {
  let kv: KV;
  try {
    kv = await bus.kvm.open(BUCKET_EXECUTORS);
    await kv.status();
  } catch (err) {
    log.warn({ err, bucket: BUCKET_EXECUTORS }, "no executor heartbeat bucket: calls are not refused for a domain with no live executor (provision the topology again to add it)");
    return { isAlive: async () => true };
  }
  const aliveUntil = new Map<string, number>();
  return {
    async isAlive(domain) {
      const now = Date.now();
      if ((aliveUntil.get(domain) ?? 0) > now) return true;
      let alive: boolean;
      try {
        const entry = await kv.get(domain);
        alive = entry !== null && entry.operation === "PUT";
      } catch (err) {
        // cannot tell: never refuse a call for a read that failed
        log.warn({ err, domain }, "executor heartbeat could not be read");
        return true;
      }
      if (alive) aliveUntil.set(domain, now + ALIVE_CACHE_MS);
      else aliveUntil.delete(domain);
      return alive;
    },
  };
}
