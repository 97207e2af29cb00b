import { STREAM_CALLS } from "@warden/contracts/subjects";
import type { Bus } from "@warden/bus";

export interface DrainWait {
  /** How long the durable consumers took to have nothing left to deliver or acknowledge. */
  readonly ms: number;
  /** Their messages left when the wait began (pending + unacknowledged, summed). */
  readonly leftAtStart: number;
  /** The consumers still behind when the wait gave up; empty when all caught up. */
  readonly behind: readonly string[];
}

async function leftPerConsumer(bus: Bus): Promise<Map<string, number>> {
  const left = new Map<string, number>();
  for await (const c of bus.jsm.consumers.list(STREAM_CALLS)) {
    // ordered (ephemeral) consumers are readers like the driver's own watch, not a service's stage
    if (c.config.durable_name === undefined) continue;
    left.set(c.name, c.num_pending + c.num_ack_pending);
  }
  return left;
}

/**
 * Waits until every durable consumer of the call stream (each stage, the projector, the notary)
 * has caught up: a load phase's calls are not done, nor their CPU all spent, while a reader of
 * the stream still works through them.
 */
export async function waitForConsumersDrained(bus: Bus, timeoutMs: number): Promise<DrainWait> {
  const start = performance.now();
  let leftAtStart: number | undefined;
  for (;;) {
    const left = await leftPerConsumer(bus);
    const total = [...left.values()].reduce((a, b) => a + b, 0);
    leftAtStart ??= total;
    const ms = performance.now() - start;
    if (total === 0) return { ms, leftAtStart, behind: [] };
    if (ms > timeoutMs) return { ms, leftAtStart, behind: [...left].filter(([, n]) => n > 0).map(([name, n]) => `${name} (${n})`) };
    await new Promise((r) => setTimeout(r, 50));
  }
}
