import { encodeJson, isRevisionConflict } from "@warden/bus";
import type { WardenEvent } from "@warden/contracts/events";
import type { AnyReadModelSpec } from "@warden/projections";
import type { z } from "zod";
import type { KV } from "@warden/bus";
import { parseStoredModel } from "./stored-model.js";

const MAX_CAS_ATTEMPTS = 50;

export interface SequencedEvent {
  readonly seq: number;
  readonly event: WardenEvent;
}

type Model = { readonly seq: number };

/**
 * One read model's bucket. Every write is a compare-and-set on the key's revision, and events a
 * model already holds (seq <= its seq) are skipped, so a redelivery or a second projector copy
 * never counts one twice. What this copy wrote last is cached: while it is the only writer (it
 * holds the lease) a key is written without being read first; a failed compare-and-set means
 * someone else wrote, and the key is read again.
 */
export class ModelStore {
  private readonly cache = new Map<string, { model: Model; revision: number }>();
  private readonly apply: (m: Model | undefined, k: string, e: WardenEvent, s: number) => Model | undefined;

  constructor(
    private readonly kv: KV,
    readonly spec: AnyReadModelSpec,
    private readonly cacheSize = 10_000,
  ) {
    this.apply = spec.apply as (m: Model | undefined, k: string, e: WardenEvent, s: number) => Model | undefined;
  }

  /** Applies a key's events (in stream order); true when something was written. */
  async update(key: string, events: readonly SequencedEvent[]): Promise<boolean> {
    const cached = this.cache.get(key);
    // a key this copy has not seen is most often new: try to create it before reading it. Only a
    // write proves that guess; "nothing to write" from a guessed-empty model proves nothing.
    const fast = await this.tryWrite(key, cached?.model, cached?.revision ?? 0, events);
    if (fast === "written" || (fast === "unchanged" && cached !== undefined)) return fast === "written";
    for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
      const entry = await this.kv.get(key);
      const current = entry !== null && entry.operation === "PUT" ? parseModel(this.spec, entry.value) : undefined;
      const r = await this.tryWrite(key, current, entry?.revision ?? 0, events);
      if (r !== "conflict") return r === "written";
    }
    throw new Error(`read model ${this.spec.name} key ${key} is contended after ${MAX_CAS_ATTEMPTS} attempts`);
  }

  /** Drops what this copy remembers of the bucket (made again after a store loss): every key is read before it is written. */
  forget(): void {
    this.cache.clear();
  }

  private async tryWrite(key: string, current: Model | undefined, revision: number, events: readonly SequencedEvent[]): Promise<"written" | "unchanged" | "conflict"> {
    let model = current;
    for (const { seq, event } of events) {
      if (model !== undefined && model.seq >= seq) continue;
      model = this.apply(model, key, event, seq) ?? model;
    }
    if (model === undefined || model === current) return "unchanged";
    try {
      const data = encodeJson(model);
      const next = revision === 0 ? await this.kv.create(key, data) : await this.kv.update(key, data, revision);
      this.remember(key, model, next);
      return "written";
    } catch (err) {
      if (!isRevisionConflict(err)) throw err;
      this.cache.delete(key);
      return "conflict";
    }
  }

  private remember(key: string, model: Model, revision: number): void {
    this.cache.delete(key);
    this.cache.set(key, { model, revision });
    if (this.cache.size > this.cacheSize) this.cache.delete(this.cache.keys().next().value!);
  }
}

/** A stored model, or undefined when the value is not one (it is then replaced). */
export function parseModel(spec: AnyReadModelSpec, data: Uint8Array): Model | undefined {
  return parseStoredModel(spec.schema as z.ZodType<Model>, data);
}
