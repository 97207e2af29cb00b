import type { ConsumerMessages } from "@nats-io/jetstream";
import { STREAM_CALLS } from "@warden/contracts/subjects";
import type { Bus } from "./bus.js";
import type { Logger } from "./logger.js";
import { unlessNotFound } from "./nats-errors.js";

/** How long a pull must have stalled before it looks whether its durable is still there. */
const STALLED_FOR_MS = 5_000;
/** A stall status after this much quiet starts a new stall. */
const QUIET_MS = 10_000;
/**
 * Longer than a cluster's election (4–10 s on 2.9): a pull that stalls this long with its durable
 * in place is on a server that lost the others (the minority side of a partition), whose
 * connection is healthy, so the client never leaves it by itself.
 */
const RECONNECT_AFTER_MS = 15_000;
/**
 * Every stage of a process watches its own pull on the one connection: a move any of them made
 * is the move of all of them for this long (five stages asked for five moves at once).
 */
const MOVE_SETTLE_MS = 5_000;
/** A connection found back on the server it left this recently is moved again without the wait. */
const BACK_ON_LEFT_MS = 60_000;

/** The last move away from a stalled server, per connection. */
const moves = new WeakMap<object, { readonly from: string; readonly at: number }>();

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
  let stuckSince = 0;
  const cluster = d.bus.config.NATS_URL.includes(",");
  const recreate = async (now: number) => {
    const info = await unlessNotFound(d.bus.jsm.consumers.info(STREAM_CALLS, d.durable)).catch(() => null);
    if (info === undefined) {
      await d.ensure();
      log.warn({ durable: d.durable }, "durable was gone (a server on a new store?); created it again");
      return;
    }
    // the durable is there (or the server does not say): stalled still, move to another server
    if (!cluster) return;
    const server = d.bus.nc.getServer();
    const moved = moves.get(d.bus.nc);
    // another stage's move was this one's too: its 15 s count from there
    if (moved !== undefined && moved.at > stuckSince) stuckSince = moved.at;
    // the client picks its next server by its own rotation, which can land on the one it left
    const backOnLeft = moved !== undefined && moved.from === server && now - moved.at < BACK_ON_LEFT_MS && now - moved.at >= MOVE_SETTLE_MS;
    if (!backOnLeft && now - stuckSince < RECONNECT_AFTER_MS) return;
    stuckSince = now;
    moves.set(d.bus.nc, { from: server, at: now });
    const why = backOnLeft ? "pull stalled again on the server it had left; reconnecting once more" : "pull stalled with its durable in place; reconnecting to another server of the cluster";
    log.warn({ durable: d.durable, server }, why);
    await d.bus.nc.reconnect();
  };
  void (async () => {
    for await (const s of messages.status()) {
      if (s.type !== "heartbeats_missed" && s.type !== "consumer_not_found") continue;
      log.warn({ status: s.type }, "pull stalled");
      const now = Date.now();
      if (now - lastStall > QUIET_MS) stalledSince = stuckSince = now;
      lastStall = now;
      if (now - stalledSince < STALLED_FOR_MS) continue;
      stalledSince = now;
      await recreate(now).catch((err: unknown) => log.warn({ err }, "durable check failed"));
    }
  })().catch((err: unknown) => log.warn({ err }, "pull status watch ended"));
}
