import { kvPutJson, type Bus } from "@warden/bus";
import { rebuildBucketName } from "@warden/contracts";
import { READ_MODELS, type ModelMaps } from "@warden/projections";
import { digestsOf, readLiveModels, type ModelDigests } from "./live-models.js";
import { replayStream, type ReplayProgress } from "./replay.js";

export interface RebuildOptions {
  /** Write the rebuilt models into fresh buckets `<bucket>_<suffix>`; only digests otherwise. */
  readonly write?: boolean;
  readonly suffix?: string;
  /** Replay up to this sequence; the live projector's position (or the stream's end) by default. */
  readonly toSeq?: number;
  readonly onProgress?: (p: ReplayProgress) => void;
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
}

const CATCH_UP_ROUNDS = 3;
const WRITE_CONCURRENCY = 256;

/**
 * Rebuilds every read model from sequence 1 and compares it with the live models at the same
 * sequence: the replay goes on to wherever the live projector stands (a few rounds at most).
 */
export async function rebuildReadModels(bus: Bus, opts: RebuildOptions = {}): Promise<RebuildResult> {
  let live = await readLiveModels(bus);
  const target = opts.toSeq ?? (live.cursor > 0 ? live.cursor : undefined);
  let r = await replayStream(bus, { ...(target === undefined ? {} : { toSeq: target }), ...(opts.onProgress ? { onProgress: opts.onProgress } : {}) });
  let { read, invalid } = r;
  if (opts.toSeq === undefined) {
    for (let round = 0; round < CATCH_UP_ROUNDS && live.consistent && live.cursor !== r.toSeq; round++) {
      live = await readLiveModels(bus);
      if (live.cursor <= r.toSeq) break;
      r = await replayStream(bus, { maps: r.maps, fromSeq: r.toSeq + 1, toSeq: live.cursor });
      read += r.read;
      invalid += r.invalid;
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
    elapsedMs: r.elapsedMs,
    rebuilt,
    ...(buckets === undefined ? {} : { buckets }),
    ...(liveDigests === undefined ? {} : { live: liveDigests, matches: READ_MODELS.every((s) => liveDigests[s.name].digest === rebuilt[s.name].digest) }),
    liveCursor: live.cursor,
  };
}

/** Writes each read model into a fresh bucket (an old one of that name is dropped first). */
async function writeModels(bus: Bus, maps: ModelMaps, suffix: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const spec of READ_MODELS) {
    const name = rebuildBucketName(spec.bucket, suffix);
    const old = await bus.kvm.open(name).catch(() => undefined);
    await old?.destroy().catch(() => undefined);
    const kv = await bus.kvm.create(name, { history: 1, replicas: bus.config.WARDEN_REPLICAS });
    const entries = [...maps[spec.name]];
    for (let i = 0; i < entries.length; i += WRITE_CONCURRENCY) {
      await Promise.all(entries.slice(i, i + WRITE_CONCURRENCY).map(([key, model]) => kvPutJson(kv, key, model)));
    }
    out[spec.name] = name;
  }
  return out;
}
