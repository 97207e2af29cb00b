import type { Bus, KV, Logger } from "@warden/bus";
import { BUCKET_EXECUTORS, EXECUTOR_HEARTBEAT_INTERVAL_MS } from "@warden/contracts/subjects";
import type { ServerClock } from "./server-clock.js";

export interface Heartbeat {
  stop(): void;
}

/**
 * Writes this executor's heartbeat under its domain in `warden_executors` now and every
 * `intervalMs`, so the policy can refuse calls to a domain nobody runs (UNAVAILABLE) instead of
 * letting them wait. The first beat is written before the executor takes calls, so a call made
 * just after it starts is not refused. Without the bucket (an older topology) it warns once and
 * beats nothing: calls then wait as before. Each beat is read back by its revision: the time the
 * server stored it sets `clock` (the server's time, which claims' deadlines are judged on).
 */
export async function startHeartbeat(bus: Bus, log: Logger, domain: string, executorId: string, clock: ServerClock, intervalMs = EXECUTOR_HEARTBEAT_INTERVAL_MS): Promise<Heartbeat> {
  let kv: KV;
  try {
    kv = await bus.kvm.open(BUCKET_EXECUTORS);
  } catch (err) {
    log.warn({ err, bucket: BUCKET_EXECUTORS }, "no executor heartbeat bucket: this domain's calls are never refused as having no executor");
    return { stop: () => undefined };
  }
  let failing = false;
  const beat = async () => {
    try {
      const sentAt = Date.now();
      const revision = await kv.put(domain, JSON.stringify({ executorId, at: new Date().toISOString() }));
      const ackedAt = Date.now();
      // by revision: other copies of the domain write the same key; a read that fails keeps the last estimate
      const stored = await kv.get(domain, { revision }).catch(() => null);
      if (stored !== null) clock.observe(stored.created.getTime(), sentAt, ackedAt);
      if (failing) log.info("heartbeat written again");
      failing = false;
    } catch (err) {
      // one warning per outage, not one per beat
      if (!failing) log.warn({ err }, "heartbeat could not be written");
      failing = true;
    }
  };
  await beat();
  const timer = setInterval(() => void beat(), intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
