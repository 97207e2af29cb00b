import type { ConsumerMessages } from "@nats-io/jetstream";
import { STREAM_CALLS } from "@warden/contracts";
import type { Bus } from "./bus.js";
import type { Logger } from "./logger.js";
import { unlessNotFound } from "./nats-errors.js";

/** How long a pull must have stalled before it looks whether its durable is still there. */
const STALLED_FOR_MS = 5_000;
/** A stall status after this much quiet starts a new stall. */
const QUIET_MS = 10_000;

/** The durable a pull reads, and how to create it again. */
export interface PulledDurable {
  readonly bus: Bus;
  readonly durable: string;
  readonly ensure: () => Promise<void>;
}

/**
 * A lost leader shows as missed heartbeats; the client then checks the consumer and pulls again.
 * A durable that is gone (a server that came back on a new store and was provisioned again has
 * the stream, not the services' durables) is what no retry of the client brings back: once a pull
 * has stalled for a few seconds, this looks and creates it again so the pull resumes. Not at the
 * first stall: a durable someone deletes and makes again (an operator's reset) is theirs to make,
 * and nats-server 2.9 fails a delete that races a create of the same name.
 */
export function watchStalledPull(messages: ConsumerMessages, log: Logger, d: PulledDurable): void {
  let stalledSince = 0;
  let lastStall = 0;
  const recreate = async () => {
    if ((await unlessNotFound(d.bus.jsm.consumers.info(STREAM_CALLS, d.durable))) !== undefined) return;
    await d.ensure();
    log.warn({ durable: d.durable }, "durable was gone (a server on a new store?); created it again");
  };
  void (async () => {
    for await (const s of messages.status()) {
      if (s.type !== "heartbeats_missed" && s.type !== "consumer_not_found") continue;
      log.warn({ status: s.type }, "pull stalled");
      const now = Date.now();
      if (now - lastStall > QUIET_MS) stalledSince = now;
      lastStall = now;
      if (now - stalledSince < STALLED_FOR_MS) continue;
      stalledSince = now;
      await recreate().catch((err: unknown) => log.warn({ err }, "durable check failed"));
    }
  })().catch((err: unknown) => log.warn({ err }, "pull status watch ended"));
}
