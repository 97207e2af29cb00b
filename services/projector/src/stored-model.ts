import { MAX_JSON_DEPTH } from "@warden/contracts/subjects";
import { parseJsonGuarded, validateJson, type JsonLimits } from "@warden/contracts/json";
import type { z } from "zod";
import type { KV } from "@warden/bus";

/**
 * A read model is folded from events, so it nests no deeper than they may; its size is bounded
 * by the server's payload limit only (64 MiB at most), not by an event's.
 */
export const MODEL_LIMITS: JsonLimits = { maxBytes: 64 * 1024 * 1024, maxDepth: MAX_JSON_DEPTH };

/** A stored value as JSON, or undefined when it is not readable JSON within the limits; never throws. */
export function parseStoredJson(data: Uint8Array): { readonly ok: true; readonly value: unknown } | { readonly ok: false } {
  const json = parseJsonGuarded(data, MODEL_LIMITS);
  return json.ok ? json : { ok: false };
}

/** A stored value as a model of `schema`, or undefined when it is not one; never throws. */
export function parseStoredModel<T>(schema: z.ZodType<T>, data: Uint8Array): T | undefined {
  const json = parseJsonGuarded(data, MODEL_LIMITS);
  if (!json.ok) return undefined;
  const parsed = validateJson(schema, json.value);
  return parsed.ok ? parsed.value : undefined;
}

/** The model under `key`, with its revision; undefined when absent, deleted or unreadable. */
export async function getStoredModel<T>(kv: KV, key: string, schema: z.ZodType<T>): Promise<{ readonly value: T; readonly revision: number } | undefined> {
  const e = await kv.get(key);
  if (e === null || e.operation !== "PUT") return undefined;
  const value = parseStoredModel(schema, e.value);
  return value === undefined ? undefined : { value, revision: e.revision };
}
