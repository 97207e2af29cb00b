import type { Bus } from "@warden/bus";
import { CALLS_SUBJECTS, STREAM_CALLS } from "@warden/contracts";

/** A stored message of WARDEN_CALLS. */
export interface StreamRecord {
  readonly seq: number;
  readonly subject: string;
  readonly data: Uint8Array;
  /** When the server stored it (ms since the epoch); worked out only when read. */
  readonly storedAtMs: number;
}

export interface StreamRange {
  /** A subject filter, e.g. one call's prefix; every call event by default. */
  readonly filter?: string;
  /** Start at this sequence... */
  readonly fromSeq?: number;
  /** ...or at the first message stored at or after this time. */
  readonly since?: Date;
  /** Stop after this sequence; the stream's last sequence (when the read starts) by default. */
  readonly toSeq?: number;
}

export interface StreamReadSummary {
  /** The last sequence the read could reach (it started then). */
  readonly toSeq: number;
  readonly read: number;
}

/**
 * Reads a range of the stream in order with an ordered (ephemeral) consumer, handing each
 * message to `onRecord`; returning false stops the read.
 */
export async function readStream(bus: Bus, range: StreamRange, onRecord: (r: StreamRecord) => boolean | void): Promise<StreamReadSummary> {
  const info = await bus.jsm.streams.info(STREAM_CALLS);
  const toSeq = Math.min(range.toSeq ?? info.state.last_seq, info.state.last_seq);
  const fromSeq = Math.max(range.fromSeq ?? 1, 1);
  if (toSeq === 0 || fromSeq > toSeq) return { toSeq, read: 0 };
  const start =
    range.since !== undefined
      ? { deliver_policy: "by_start_time" as const, opt_start_time: range.since.toISOString() }
      : fromSeq > 1
        ? { deliver_policy: "by_start_sequence" as const, opt_start_seq: fromSeq }
        : { deliver_policy: "all" as const };
  // an ordered push consumer: reading needs no pull rights on the call stream (only a stage's
  // owner may pull from its durable); it goes away on its own once the read ends
  const consumer = await bus.js.consumers.getPushConsumer(STREAM_CALLS, { filter_subjects: range.filter ?? CALLS_SUBJECTS, ...start });
  const messages = await consumer.consume();
  // closing ends the iteration; a close that nobody iterates past would never settle, so it is not awaited
  // close() resolves (with the error, if any) and never rejects
  const stop = () => void messages.close();
  let read = 0;
  try {
    const pending = (await consumer.info(true)).num_pending;
    if (pending === 0) {
      stop();
      // iterating past the close lets it finish (and the subscription go)
      for await (const _ of messages) break;
      return { toSeq, read };
    }
    let seen = 0;
    for await (const m of messages) {
      seen++;
      if (m.seq > toSeq) break;
      read++;
      const go = onRecord({
        seq: m.seq,
        subject: m.subject,
        data: m.data,
        get storedAtMs() {
          return m.time.getTime();
        },
      });
      // the server's count of what is left after this message ends a filtered read too, even when
      // the ordered consumer was recreated on the way (a missed heartbeat on a loaded box) and the
      // count taken at the start no longer matches what this loop sees
      if (go === false || m.seq >= toSeq || seen >= pending || m.info.pending === 0) break;
    }
    return { toSeq, read };
  } finally {
    stop();
  }
}
