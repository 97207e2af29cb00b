import type { ConsumerMessages } from "@nats-io/jetstream";
import { STREAM_CALLS } from "@warden/contracts";
import type { Bus } from "./bus.js";
import type { Logger } from "./logger.js";
import { unlessNotFound } from "./nats-errors.js";

/** How often a stalled pull looks whether its durable is still there. */
const DURABLE_CHECK_MS = 5_000;

/** The durable a pull reads, and how to create it again. */
export interface PulledDurable {
  readonly bus: Bus;
  readonly durable: string;
  readonly ensure: () => Promise<void>;
}

/**
 * A lost leader shows as missed heartbeats; the client then checks the consumer and pulls again.
 * A durable that is gone (a server that came back on a new store and was provisioned again has
 * the stream, not the services' durables) is what no retry of the client brings back: this looks,
 * at most every few seconds while the pull stalls, and creates it again so the pull resumes.
 */
export function watchStalledPull(messages: ConsumerMessages, log: Logger, d: PulledDurable): void {
  let checkedAt = 0;
  const recreate = async () => {
    if ((await unlessNotFound(d.bus.jsm.consumers.info(STREAM_CALLS, d.durable))) !== undefined) return;
    await d.ensure();
    log.warn({ durable: d.durable }, "durable was gone (a server on a new store?); created it again");
  };
  void (async () => {
    for await (const s of messages.status()) {
      if (s.type !== "heartbeats_missed" && s.type !== "consumer_deleted" && s.type !== "consumer_not_found") continue;
      log.warn({ status: s.type }, "pull stalled");
      if (Date.now() - checkedAt < DURABLE_CHECK_MS) continue;
      checkedAt = Date.now();
      await recreate().catch((err: unknown) => log.warn({ err }, "durable check failed"));
    }
  })().catch((err: unknown) => log.warn({ err }, "pull status watch ended"));
}
