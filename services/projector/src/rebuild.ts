import { kvPutJson, type Bus, unlessNotFound } from "@warden/bus";
import { rebuildBucketName, STREAM_CALLS } from "@warden/contracts/subjects";
import { READ_MODELS, type ModelMaps } from "@warden/projections";
import { digestsOf, readLiveModels, type ModelDigests } from "./live-models.js";
import { awaitProjector, type ProjectorPosition } from "./projector-position.js";
import { MAX_INVALID_SAMPLES, replayStream, type ReplayProgress, type ReplayResult } from "./replay.js";

export interface RebuildOptions {
  /** Write the rebuilt models into fresh buckets `<bucket>_<suffix>`; only digests otherwise. */
  readonly write?: boolean;
  readonly suffix?: string;
  /** Replay up to this sequence; the stream's end (or beyond, wherever the live projector is) by default. */
  readonly toSeq?: number;
  readonly onProgress?: (p: ReplayProgress) => void;
  /** How long to wait for the projector to reach the stream's end (PROJECTOR_WAIT_MS by default). */
  readonly projectorWaitMs?: number;
}

export interface RebuildResult {
  readonly toSeq: number;
  readonly read: number;
  readonly invalid: number;
  readonly elapsedMs: number;
  readonly rebuilt: ModelDigests;
  /** The buckets written, when asked to write. */
  readonly buckets?: Record<string, string>;
  /** The live models' digests at the same sequence, when they could be read there. */
  readonly live?: ModelDigests;
  readonly liveCursor: number;
  /** True when every rebuilt digest equals the live one at the same sequence. */
  readonly matches?: boolean;
  /** Whether the projector reached the stream's end (or `toSeq`); when not, nothing was compared. */
  readonly projector: ProjectorPosition;
  /** The first messages left out, with why (at most a few). */
  readonly invalidSamples: ReplayResult["invalidSamples"];
}

const CATCH_UP_ROUNDS = 3;
const WRITE_CONCURRENCY = 256;

/**
 * Rebuilds every read model from sequence 1 and compares it with the live models at the same
 * sequence. The comparison covers the whole stream: the projector must first reach the stream's
 * last sequence (waiting a little for a busy one), and the replay then goes on to wherever the
 * live projector stands (a few rounds at most). A projector that does not get there is reported
 * as such and nothing is compared: equal digests up to a stuck cursor prove nothing.
 */
export async function rebuildReadModels(bus: Bus, opts: RebuildOptions = {}): Promise<RebuildResult> {
  const streamLast = (await bus.jsm.streams.info(STREAM_CALLS)).state.last_seq;
  const target = Math.min(opts.toSeq ?? streamLast, streamLast);
  const projector = await awaitProjector(bus, { target, ...(opts.projectorWaitMs === undefined ? {} : { waitMs: opts.projectorWaitMs }) });
  const progress = opts.onProgress ? { onProgress: opts.onProgress } : {};
  if (!projector.caughtUp) {
    const r = await replayStream(bus, { toSeq: target, ...progress });
    const buckets = opts.write ? await writeModels(bus, r.maps, opts.suffix ?? "rebuild") : undefined;
    return {
      toSeq: r.toSeq,
      read: r.read,
      invalid: r.invalid,
      invalidSamples: r.invalidSamples,
      elapsedMs: r.elapsedMs,
      rebuilt: digestsOf(r.maps),
      ...(buckets === undefined ? {} : { buckets }),
      liveCursor: projector.cursor,
      projector,
    };
  }
  let live = await readLiveModels(bus);
  const replayTo = opts.toSeq ?? live.cursor;
  let r = await replayStream(bus, { toSeq: replayTo, ...progress });
  let { read, invalid } = r;
  const invalidSamples = [...r.invalidSamples];
  if (opts.toSeq === undefined) {
    for (let round = 0; round < CATCH_UP_ROUNDS && live.consistent && live.cursor !== r.toSeq; round++) {
      live = await readLiveModels(bus);
      if (live.cursor <= r.toSeq) break;
      r = await replayStream(bus, { maps: r.maps, fromSeq: r.toSeq + 1, toSeq: live.cursor });
      read += r.read;
      invalid += r.invalid;
      invalidSamples.push(...r.invalidSamples);
    }
  } else if (live.cursor !== opts.toSeq) {
    live = await readLiveModels(bus);
  }
  const rebuilt = digestsOf(r.maps);
  const buckets = opts.write ? await writeModels(bus, r.maps, opts.suffix ?? "rebuild") : undefined;
  const comparable = live.consistent && live.cursor === r.toSeq;
  const liveDigests = comparable ? digestsOf(live.maps) : undefined;
  return {
    toSeq: r.toSeq,
    read,
    invalid,
    invalidSamples: invalidSamples.slice(0, MAX_INVALID_SAMPLES),
    elapsedMs: r.elapsedMs,
    rebuilt,
    ...(buckets === undefined ? {} : { buckets }),
    ...(liveDigests === undefined ? {} : { live: liveDigests, matches: READ_MODELS.every((s) => liveDigests[s.name].digest === rebuilt[s.name].digest) }),
    liveCursor: live.cursor,
    projector,
  };
}

/** Writes each read model into a fresh bucket (an old one of that name is dropped first). */
async function writeModels(bus: Bus, maps: ModelMaps, suffix: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const spec of READ_MODELS) {
    const name = rebuildBucketName(spec.bucket, suffix);
    await unlessNotFound((await bus.kvm.open(name)).destroy());
    const kv = await bus.kvm.create(name, { history: 1, replicas: bus.config.WARDEN_REPLICAS });
    const entries = [...maps[spec.name]];
    for (let i = 0; i < entries.length; i += WRITE_CONCURRENCY) {
      await Promise.all(entries.slice(i, i + WRITE_CONCURRENCY).map(([key, model]) => kvPutJson(kv, key, model)));
    }
    out[spec.name] = name;
  }
  return out;
}
