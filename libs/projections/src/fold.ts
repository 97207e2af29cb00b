import type { WardenEvent } from "@warden/contracts/events";
import { READ_MODELS, type ReadModelName } from "./read-models.js";

/** Every read model in memory: name -> key -> model. */
export type ModelMaps = Record<ReadModelName, Map<string, { readonly seq: number }>>;

export function emptyModelMaps(): ModelMaps {
  return { calls: new Map(), approvals: new Map(), budgets: new Map() };
}

/**
 * Folds one event (stream sequence `seq`) into every read model, skipping models that already
 * hold it: the same rule the live projector applies, so a replay gives the same models.
 */
export function foldEvent(maps: ModelMaps, seq: number, event: WardenEvent): void {
  for (const spec of READ_MODELS) {
    const map = maps[spec.name];
    for (const key of spec.keysOf(event)) {
      const current = map.get(key);
      if (current !== undefined && current.seq >= seq) continue;
      const next = (spec.apply as (m: unknown, k: string, e: WardenEvent, s: number) => { seq: number } | undefined)(current, key, event, seq);
      if (next !== undefined) map.set(key, next);
    }
  }
}
