import type { Bus } from "@warden/bus";
import { digestModels, READ_MODELS, type ReadModelName } from "@warden/projections";
import { readBucket } from "./bucket-reader.js";
import { openCursor } from "./cursor.js";

export type ModelDigests = Record<ReadModelName, { readonly bucket: string; readonly keys: number; readonly digest: string }>;

export interface LiveModels {
  /** Every model reflects the stream up to this sequence and nothing after it. */
  readonly cursor: number;
  readonly maps: Record<ReadModelName, Map<string, unknown>>;
  /** False when the projector kept moving while the models were read (they mix two positions). */
  readonly consistent: boolean;
}

const ATTEMPTS = 5;

/** Reads the live read models at one cursor position: read, and read again if the projector moved. */
export async function readLiveModels(bus: Bus): Promise<LiveModels> {
  const cursor = await openCursor(bus);
  const buckets = await Promise.all(READ_MODELS.map(async (spec) => ({ spec, kv: await bus.kvm.open(spec.bucket) })));
  let last: LiveModels | undefined;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const before = await cursor.read();
    const entries = await Promise.all(buckets.map(async ({ spec, kv }) => [spec.name, await readBucket(kv, spec.ownsKey)] as const));
    const after = await cursor.read();
    const maps = Object.fromEntries(entries) as LiveModels["maps"];
    // a batch writes its models before it moves the cursor: a model past the cursor is from the next batch
    const ahead = entries.some(([, m]) => [...m.values()].some((v) => seqOf(v) > after));
    last = { cursor: after, maps, consistent: before === after && !ahead };
    if (last.consistent) return last;
  }
  return last!;
}

/** The digest of each read model (see digestModels). */
export function digestsOf(maps: Record<ReadModelName, ReadonlyMap<string, unknown>>): ModelDigests {
  const out = {} as Record<ReadModelName, { bucket: string; keys: number; digest: string }>;
  for (const spec of READ_MODELS) {
    const m = maps[spec.name];
    out[spec.name] = { bucket: spec.bucket, keys: m.size, digest: digestModels(m) };
  }
  return out;
}

function seqOf(v: unknown): number {
  return typeof v === "object" && v !== null && typeof (v as { seq?: unknown }).seq === "number" ? (v as { seq: number }).seq : 0;
}
