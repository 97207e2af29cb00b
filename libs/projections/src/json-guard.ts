import type { z } from "zod";

/**
 * A stream message larger than this is not an event Warden wrote: the largest carries a
 * request's args (at most MAX_REQUEST_BYTES, 256 KiB) once, and nats-server's default payload
 * limit is 1 MiB. Requests the registry refuses as too large still fit, so their rejection is
 * folded with them.
 */
export const MAX_EVENT_BYTES = 1024 * 1024;

/**
 * Arrays and objects nested deeper than this (counted from the event itself, so args start at
 * level 3) are refused before anything recursive (zod, canonical JSON, a preview) sees them.
 * Far below where those recursions overflow the stack (~1,500 levels for zod), so a live
 * projector and a replay refuse exactly the same messages; equal to the stages' limit
 * (MAX_JSON_DEPTH of @warden/bus), so the stages and the read models agree on what is an event.
 */
export const MAX_EVENT_DEPTH = 512;

/** Why bytes are not a JSON value a reader may go on with; stable codes for logs and the DLQ. */
export const JSON_FAILURES = ["TOO_LARGE", "NOT_UTF8", "TOO_DEEP", "MALFORMED_JSON"] as const;
export type JsonFailure = (typeof JSON_FAILURES)[number];

export type GuardedJson =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly code: JsonFailure; readonly reason: string };

export interface JsonLimits {
  readonly maxBytes: number;
  readonly maxDepth: number;
}

export const EVENT_LIMITS: JsonLimits = { maxBytes: MAX_EVENT_BYTES, maxDepth: MAX_EVENT_DEPTH };

// fatal: bytes that are not UTF-8 are refused instead of silently becoming U+FFFD
const utf8 = new TextDecoder("utf-8", { fatal: true });

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Parses JSON bytes within limits; never throws. The depth is counted on the bytes before
 * parsing (one pass, no allocation): every byte it looks at is ASCII, which UTF-8 never uses
 * inside a multi-byte character.
 */
export function parseJsonGuarded(data: Uint8Array, limits: JsonLimits = EVENT_LIMITS): GuardedJson {
  if (data.byteLength > limits.maxBytes) return { ok: false, code: "TOO_LARGE", reason: `${data.byteLength} bytes; the limit is ${limits.maxBytes}` };
  let text: string;
  try {
    text = utf8.decode(data);
  } catch {
    return { ok: false, code: "NOT_UTF8", reason: "the bytes are not valid UTF-8" };
  }
  if (nestingExceeds(data, limits.maxDepth)) return { ok: false, code: "TOO_DEEP", reason: `JSON nested deeper than ${limits.maxDepth} levels` };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (err) {
    return { ok: false, code: "MALFORMED_JSON", reason: `malformed JSON: ${(err as Error).message}` };
  }
}

/** True when JSON text (as UTF-8 bytes) opens more than `max` arrays or objects at once. */
export function nestingExceeds(data: Uint8Array, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < data.length; i++) {
    const b = data[i]!;
    if (inString) {
      if (b === BACKSLASH) i++;
      else if (b === QUOTE) inString = false;
    } else if (b === QUOTE) inString = true;
    else if (b === OPEN_BRACE || b === OPEN_BRACKET) {
      if (++depth > max) return true;
    } else if (b === CLOSE_BRACE || b === CLOSE_BRACKET) depth--;
  }
  return false;
}

/** True when a parsed value nests arrays or objects more than `max` deep; iterative, so any depth is safe to ask about. */
export function valueDepthExceeds(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== "object") continue;
    if (depth > max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (child !== null && typeof child === "object") stack.push([child, depth + 1]);
    }
  }
  return false;
}

export type GuardedParse<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly code: "TOO_DEEP" | "SCHEMA_INVALID"; readonly reason: string };

/**
 * Validates an already parsed value with a schema; never throws. Too deep a value is refused
 * before zod recurses into it (values parsed by parseJsonGuarded are checked already: use
 * validateJson for those).
 */
export function safeParseGuarded<T>(schema: z.ZodType<T>, value: unknown, maxDepth: number = MAX_EVENT_DEPTH): GuardedParse<T> {
  if (valueDepthExceeds(value, maxDepth)) return { ok: false, code: "TOO_DEEP", reason: `JSON nested deeper than ${maxDepth} levels` };
  return validateJson(schema, value);
}

/** zod's safeParse, with a stack overflow inside it (too deep a value) as a value too. */
export function validateJson<T>(schema: z.ZodType<T>, value: unknown): GuardedParse<T> {
  let parsed: ReturnType<typeof schema.safeParse>;
  try {
    parsed = schema.safeParse(value);
  } catch (err) {
    if (err instanceof RangeError) return { ok: false, code: "TOO_DEEP", reason: `too deep to validate: ${err.message}` };
    throw err;
  }
  if (parsed.success) return { ok: true, value: parsed.data };
  const issue = parsed.error.issues[0];
  return { ok: false, code: "SCHEMA_INVALID", reason: `${issue?.path.join(".") ?? ""} ${issue?.message ?? ""}`.trim() };
}
