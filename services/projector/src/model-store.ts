import { decodeJson, kvCreateJson, kvUpdateJson } from "@warden/bus";
import type { WardenEvent } from "@warden/contracts";
import type { AnyReadModelSpec } from "@warden/projections";
import type { KV } from "./kv.js";

const MAX_CAS_ATTEMPTS = 50;

export interface SequencedEvent {
  readonly seq: number;
  readonly event: WardenEvent;
}

type Model = { readonly seq: number };

/**
 * Applies a key's events (in stream order) to its stored model with compare-and-set: events the
 * model already holds (seq <= its seq) are skipped, so a redelivery or a second projector copy
 * never counts one twice. Returns whether anything was written.
 */
export async function updateModel(kv: KV, spec: AnyReadModelSpec, key: string, events: readonly SequencedEvent[]): Promise<boolean> {
  const apply = spec.apply as (m: Model | undefined, k: string, e: WardenEvent, s: number) => Model | undefined;
  for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
    const entry = await kv.get(key);
    const current = entry !== null && entry.operation === "PUT" ? parseModel(spec, entry.value) : undefined;
    let model = current;
    for (const { seq, event } of events) {
      if (model !== undefined && model.seq >= seq) continue;
      model = apply(model, key, event, seq) ?? model;
    }
    if (model === undefined || model === current) return false;
    const written = entry === null ? await kvCreateJson(kv, key, model) : await kvUpdateJson(kv, key, model, entry.revision);
    if (written) return true;
  }
  throw new Error(`read model ${spec.name} key ${key} is contended after ${MAX_CAS_ATTEMPTS} attempts`);
}

/** A stored model, or undefined when the value is not one (it is then replaced). */
export function parseModel(spec: AnyReadModelSpec, data: Uint8Array): Model | undefined {
  const decoded = decodeJson(data);
  if (!decoded.ok) return undefined;
  const parsed = spec.schema.safeParse(decoded.value);
  return parsed.success ? (parsed.data as Model) : undefined;
}
