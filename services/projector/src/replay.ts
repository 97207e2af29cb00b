import type { Bus } from "@warden/bus";
import { STREAM_CALLS } from "@warden/contracts/subjects";
import { decodeCallMessage, decodeFailureText, emptyModelMaps, foldEvent, type ModelMaps } from "@warden/projections";
import type { UnreadableMessage } from "./call-events.js";
import { readStream } from "./stream-reader.js";

export interface ReplayProgress {
  readonly seq: number;
  readonly toSeq: number;
  readonly read: number;
  readonly elapsedMs: number;
}

export interface ReplayOptions {
  /** Continue models folded earlier (a resumed replay, with `fromSeq`); fresh ones by default. */
  readonly maps?: ModelMaps;
  readonly fromSeq?: number;
  /** The last sequence to fold; the stream's last by default. */
  readonly toSeq?: number;
  readonly onProgress?: (p: ReplayProgress) => void;
  readonly progressEveryMs?: number;
}

export interface ReplayResult {
  readonly maps: ModelMaps;
  readonly fromSeq: number;
  readonly toSeq: number;
  /** Messages read and, of them, those left out because they are not valid events. */
  readonly read: number;
  readonly invalid: number;
  /** The first few of those, with why they were left out. */
  readonly invalidSamples: readonly UnreadableMessage[];
  readonly elapsedMs: number;
}

/** Left-out messages a replay names (it counts all of them). */
export const MAX_INVALID_SAMPLES = 10;

/** Folds the stream (from sequence 1 by default) into every read model in memory. */
export async function replayStream(bus: Bus, opts: ReplayOptions = {}): Promise<ReplayResult> {
  const maps = opts.maps ?? emptyModelMaps();
  const fromSeq = opts.fromSeq ?? 1;
  const last = (await bus.jsm.streams.info(STREAM_CALLS)).state.last_seq;
  const toSeq = Math.min(opts.toSeq ?? last, last);
  const t0 = performance.now();
  const every = opts.progressEveryMs ?? 1_000;
  let lastReport = t0;
  let invalid = 0;
  const invalidSamples: UnreadableMessage[] = [];
  let read = 0;
  await readStream(bus, { fromSeq, toSeq }, (r) => {
    read++;
    const d = decodeCallMessage(r.subject, r.data);
    if (d.ok) foldEvent(maps, r.seq, d.event);
    else if (invalid++ < MAX_INVALID_SAMPLES) invalidSamples.push({ seq: r.seq, subject: r.subject, reason: decodeFailureText(d) });
    if (opts.onProgress !== undefined && read % 1_000 === 0) {
      const now = performance.now();
      if (now - lastReport >= every) {
        lastReport = now;
        opts.onProgress({ seq: r.seq, toSeq, read, elapsedMs: now - t0 });
      }
    }
  });
  return { maps, fromSeq, toSeq, read, invalid, invalidSamples, elapsedMs: performance.now() - t0 };
}
