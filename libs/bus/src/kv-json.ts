import type { KV, KvEntry } from "@nats-io/kv";
import type { z } from "zod";
import { decodeJson, encodeJson } from "./codec.js";
import { isRevisionConflict } from "./nats-errors.js";

export interface JsonEntry<T> {
  readonly key: string;
  readonly value: T;
  readonly revision: number;
}

/** Reads a JSON value from KV; absent, deleted or invalid values are undefined. */
export async function kvGetJson<S extends z.ZodType>(kv: KV, key: string, schema: S): Promise<JsonEntry<z.infer<S>> | undefined> {
  const e = await kv.get(key);
  return e ? entryToJson(e, schema) : undefined;
}

export function entryToJson<S extends z.ZodType>(e: KvEntry, schema: S): JsonEntry<z.infer<S>> | undefined {
  if (e.operation !== "PUT") return undefined;
  const decoded = decodeJson(e.value);
  if (!decoded.ok) return undefined;
  const parsed = schema.safeParse(decoded.value);
  return parsed.success ? { key: e.key, value: parsed.data, revision: e.revision } : undefined;
}

export async function kvPutJson(kv: KV, key: string, value: unknown): Promise<number> {
  return kv.put(key, encodeJson(value));
}

/** Creates the key only if it does not exist; false when it was already there. */
export async function kvCreateJson(kv: KV, key: string, value: unknown): Promise<boolean> {
  try {
    await kv.create(key, encodeJson(value));
    return true;
  } catch (err) {
    if (isRevisionConflict(err)) return false;
    throw err;
  }
}

/** Compare-and-set update; false when someone else changed the key first. */
export async function kvUpdateJson(kv: KV, key: string, value: unknown, revision: number): Promise<boolean> {
  try {
    await kv.update(key, encodeJson(value), revision);
    return true;
  } catch (err) {
    if (isRevisionConflict(err)) return false;
    throw err;
  }
}

/**
 * Keeps a map of every key's current JSON value, fed by a KV watch (initial values first).
 * Resolves once the initial values are loaded.
 */
export async function watchJsonMap<S extends z.ZodType>(
  kv: KV,
  schema: S,
  onChange?: (key: string, value: z.infer<S> | undefined) => void,
  key = ">",
): Promise<{ readonly map: ReadonlyMap<string, z.infer<S>>; stop(): void }> {
  const map = new Map<string, z.infer<S>>();
  let resolveReady!: () => void;
  const ready = new Promise<void>((r) => (resolveReady = r));
  const iter = await kv.watch({ key });
  // the watch replays current values first; the last of them has delta 0
  let initial = 0;
  for await (const _ of await kv.keys(key)) initial++;
  if (initial === 0) resolveReady();
  void (async () => {
    for await (const e of iter) {
      if (!e.isUpdate && e.delta === 0) resolveReady();
      const parsed = entryToJson(e, schema);
      if (parsed) map.set(e.key, parsed.value);
      else map.delete(e.key);
      onChange?.(e.key, parsed?.value);
      if (e.isUpdate) resolveReady();
    }
  })();
  await ready;
  return { map, stop: () => iter.stop() };
}
