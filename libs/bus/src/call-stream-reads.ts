import type { StoredMsg } from "@nats-io/jetstream";
import { CALLS_SUBJECTS, STREAM_CALLS } from "@warden/contracts/subjects";
import type { Bus } from "./bus.js";
import { batchDirectGets, getStoredBatch } from "./batch-direct-get.js";
import { getStoredMessage } from "./stored-message.js";
import type { Logger } from "./logger.js";

/**
 * Reading WARDEN_CALLS by direct gets only (`$JS.API.DIRECT.GET.WARDEN_CALLS`), never through a
 * consumer: no reader needs the right to create consumers on the call stream, which NATS cannot
 * tell apart from the right to rewrite an executor's durable (docs/security.md). A single server of
 * NATS ≥ 2.11 answers batch direct gets, a few hundred messages per request (batch-direct-get.ts);
 * on older servers and on clusters the whole stream is read by sequence with many gets in flight,
 * a filtered range one `next_by_subj` get after another.
 */

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

/** Direct gets in flight at once on a read of the whole stream. */
const WINDOW = 64;

const recordOf = (m: StoredMsg): StreamRecord => ({
  seq: m.seq,
  subject: m.subject,
  data: m.data,
  get storedAtMs() {
    return m.time.getTime();
  },
});

/** The first sequence at or after `fromSeq` stored at or after `since` (binary search: the stream is in time order). */
async function firstSeqSince(bus: Bus, since: Date, fromSeq: number, toSeq: number): Promise<number> {
  let lo = fromSeq;
  let hi = toSeq + 1;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    const m = await getStoredMessage(bus, STREAM_CALLS, { seq: mid, next_by_subj: CALLS_SUBJECTS });
    if (m === null || m.seq > toSeq) hi = mid;
    else if (m.time.getTime() >= since.getTime()) hi = mid;
    else lo = m.seq + 1;
  }
  return lo;
}

/**
 * Reads a range of the call stream in order, handing each message to `onRecord`; returning false
 * stops the read. Messages stored after the read began are not read unless `toSeq` asks for them.
 */
export async function readCallStream(bus: Bus, range: StreamRange, onRecord: (r: StreamRecord) => boolean | void): Promise<StreamReadSummary> {
  let fromSeq = Math.max(range.fromSeq ?? 1, 1);
  let toSeq = range.toSeq ?? Number.MAX_SAFE_INTEGER;
  if (range.toSeq === undefined || range.filter === undefined || range.since !== undefined) {
    const { state } = await bus.jsm.streams.info(STREAM_CALLS);
    toSeq = Math.min(toSeq, state.last_seq);
    fromSeq = Math.max(fromSeq, state.first_seq);
  }
  if (toSeq === 0 || fromSeq > toSeq) return { toSeq, read: 0 };
  if (range.since !== undefined) fromSeq = await firstSeqSince(bus, range.since, fromSeq, toSeq);
  const filter = range.filter === undefined || range.filter === CALLS_SUBJECTS ? undefined : range.filter;
  if (batchDirectGets(bus)) return readBatched(bus, filter, fromSeq, toSeq, onRecord);
  return filter === undefined ? readBySeq(bus, fromSeq, toSeq, onRecord) : readFiltered(bus, filter, fromSeq, toSeq, onRecord);
}

/** Messages asked for per batch direct get. */
const BATCH = 256;

/**
 * A range read by batch direct gets (nats-server ≥ 2.11, one server): one request per `BATCH`
 * messages instead of one per message, for the whole stream and a filter alike. The next batch
 * is asked for while this one is handed over.
 */
async function readBatched(bus: Bus, filter: string | undefined, fromSeq: number, toSeq: number, onRecord: (r: StreamRecord) => boolean | void): Promise<StreamReadSummary> {
  type Got = { batch: StoredMsg[] } | { err: unknown };
  // settled into a value at once: a batch asked for ahead and left behind by an early stop rejects nobody
  const ask = (seq: number): Promise<Got> =>
    getStoredBatch(bus, STREAM_CALLS, filter === undefined ? { seq, batch: Math.min(BATCH, toSeq - seq + 1) } : { seq, batch: BATCH, nextBySubject: filter }).then(
      (batch) => ({ batch }),
      (err: unknown) => ({ err }),
    );
  let read = 0;
  let next: Promise<Got> | undefined = ask(fromSeq);
  while (next !== undefined) {
    const got: Got = await next;
    if ("err" in got) throw got.err;
    const last: number | undefined = got.batch.at(-1)?.seq;
    // a batch ends at its count, its bytes or the stream's end: ask on from its last until one comes back empty
    next = last === undefined || last >= toSeq ? undefined : ask(last + 1);
    for (const m of got.batch) {
      if (m.seq > toSeq) return { toSeq, read };
      read++;
      if (onRecord(recordOf(m)) === false) return { toSeq, read };
    }
  }
  return { toSeq, read };
}

async function readBySeq(bus: Bus, fromSeq: number, toSeq: number, onRecord: (r: StreamRecord) => boolean | void): Promise<StreamReadSummary> {
  type Got = { m: StoredMsg | null } | { err: unknown };
  const inflight: Promise<Got>[] = [];
  let ask = fromSeq;
  const fill = () => {
    while (inflight.length < WINDOW && ask <= toSeq) {
      // settled into a value at once: a get left behind by an early stop rejects nobody
      inflight.push(getStoredMessage(bus, STREAM_CALLS, { seq: ask++ }).then((m) => ({ m }), (err: unknown) => ({ err })));
    }
  };
  let read = 0;
  fill();
  while (inflight.length > 0) {
    const got = await inflight.shift()!;
    if ("err" in got) throw got.err;
    fill();
    // a sequence the stream no longer holds (aged out since the read began) is skipped
    if (got.m === null) continue;
    read++;
    if (onRecord(recordOf(got.m)) === false) break;
  }
  return { toSeq, read };
}

async function readFiltered(bus: Bus, filter: string, fromSeq: number, toSeq: number, onRecord: (r: StreamRecord) => boolean | void): Promise<StreamReadSummary> {
  let read = 0;
  for (let seq = fromSeq; seq <= toSeq; ) {
    const m = await getStoredMessage(bus, STREAM_CALLS, { seq, next_by_subj: filter });
    if (m === null || m.seq > toSeq) break;
    read++;
    if (onRecord(recordOf(m)) === false) break;
    seq = m.seq + 1;
  }
  return { toSeq, read };
}

const WAKE_AGAIN_MS = 20;

export interface CallStreamFollowOptions {
  readonly filter?: string;
  /** Where to start: a sequence, or the first message stored at or after a time. */
  readonly fromSeq?: number;
  readonly since?: Date;
  /** Reads what is new at least this often. */
  readonly pollMs: number;
  /**
   * A core subject to hear new messages on, so they are read at once rather than at the next
   * poll. Only a hint: what is read is what the stream holds, never what was heard.
   */
  readonly wakeOn?: string;
  readonly log: Logger;
}

export interface CallStreamFollower {
  /** Everything up to this stream sequence has been read (0 before the first read). */
  readSeq(): number;
  /** Reads what the stream holds now; resolves when it has been handed over. */
  catchUp(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Follows the call stream with direct gets: reads from the start, then what is new on every wake
 * (`wakeOn`) and every `pollMs`, one read at a time, handing each message over once in order.
 */
export function followCallStream(bus: Bus, o: CallStreamFollowOptions, onRecord: (r: StreamRecord) => void): CallStreamFollower {
  let next = o.fromSeq ?? 1;
  let since = o.since;
  let readThrough = 0;
  let stopped = false;
  let queue: Promise<void> = Promise.resolve();
  let pending: Promise<void> | undefined;

  const pass = async () => {
    const range: StreamRange = since === undefined ? { fromSeq: next } : { fromSeq: next, since };
    const { toSeq } = await readCallStream(bus, o.filter === undefined ? range : { ...range, filter: o.filter }, (r) => {
      next = r.seq + 1;
      onRecord(r);
    });
    // whatever the filter left out up to toSeq has been read past too
    since = undefined;
    next = Math.max(next, toSeq + 1);
    readThrough = Math.max(readThrough, toSeq);
  };
  const catchUp = (): Promise<void> => {
    if (stopped) return queue;
    if (pending !== undefined) return pending;
    const p = queue.then(() => {
      pending = undefined;
      return stopped ? undefined : pass();
    });
    pending = p;
    queue = p.catch(() => {});
    return p;
  };
  const background = () => void catchUp().catch((err: unknown) => o.log.warn({ err }, "reading the call stream failed; trying again"));

  // a message is heard as the server stores it, so a read at once may just miss it: read again a
  // moment after the last message heard too (one trailing read however many are heard in a row)
  let trailing: NodeJS.Timeout | undefined;
  const wake = () => {
    background();
    clearTimeout(trailing);
    trailing = setTimeout(() => {
      trailing = undefined;
      background();
    }, WAKE_AGAIN_MS);
  };
  const timer = setInterval(background, o.pollMs);
  const sub = o.wakeOn === undefined ? undefined : bus.nc.subscribe(o.wakeOn, { callback: wake });
  background();
  return {
    readSeq: () => readThrough,
    catchUp,
    async stop() {
      stopped = true;
      clearInterval(timer);
      clearTimeout(trailing);
      sub?.unsubscribe();
      await queue;
    },
  };
}
