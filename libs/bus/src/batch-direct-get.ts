import type { StoredMsg } from "@nats-io/jetstream";
import { JetStreamStatusError } from "@nats-io/jetstream/internal";
import { compare, parseSemVer } from "@nats-io/nats-core/internal";
import type { Bus } from "./bus.js";

/** nats-server's batch direct get (ADR-31): many stored messages for one request. */
const BATCH_DIRECT_GET_SINCE = parseSemVer("2.11.0");

/**
 * Whether reads may ask for many messages at once: the server is ≥ 2.11, and it is a single
 * server. On a cluster the nearest replica answers a direct get, and a batch from one that is
 * behind would end early without saying so, which the one-message reads of stored-message.ts
 * detect and ask the leader again: clusters keep those.
 */
export function batchDirectGets(bus: Bus): boolean {
  const info = bus.nc.info;
  if (info === undefined || info.cluster !== undefined) return false;
  try {
    return compare(parseSemVer(info.version), BATCH_DIRECT_GET_SINCE) >= 0;
  } catch {
    return false;
  }
}

export interface BatchQuery {
  readonly seq: number;
  readonly batch: number;
  /** Only messages whose subject matches, from `seq` on. */
  readonly nextBySubject?: string;
}

/** Bytes one batch may carry (the server ends the batch early past it); a batch is held in memory. */
const MAX_BATCH_BYTES = 4 * 1024 * 1024;

/**
 * One batch direct get: the stored messages from `seq` (matching the filter), at most `batch` of
 * them, in stream order; none when nothing is stored there. The client's callback form is used:
 * its subscription ends with the batch (the iterator form keeps it until a 5 s timeout).
 */
export function getStoredBatch(bus: Bus, stream: string, q: BatchQuery): Promise<StoredMsg[]> {
  return new Promise<StoredMsg[]>((resolve, reject) => {
    const got: StoredMsg[] = [];
    bus.jsm.direct
      .getBatch(stream, {
        seq: q.seq,
        batch: q.batch,
        max_bytes: MAX_BATCH_BYTES,
        ...(q.nextBySubject === undefined ? {} : { next_by_subj: q.nextBySubject }),
        callback: (done, m) => {
          if (done === null) got.push(m);
          else if (done.err === undefined || nothingStored(done.err)) resolve(got);
          else reject(done.err);
        },
      })
      .catch(reject);
  });
}

/** The server's 404 for a batch with no message from its start: an empty batch, not a failure. */
function nothingStored(err: Error): boolean {
  return err instanceof JetStreamStatusError && err.code === 404;
}
