import type { z } from "zod";
import { MAX_JSON_DEPTH } from "./limits.js";

/** Why bytes are not a JSON value a reader may go on with; stable codes for logs, the DLQ and rejections. */
export const JSON_FAILURES = ["TOO_LARGE", "NOT_UTF8", "TOO_DEEP", "MALFORMED_JSON"] as const;
export type JsonFailure = (typeof JSON_FAILURES)[number];

/** Why a message on a call subject is not the event it names: the JSON failures, then the event's. */
export const EVENT_FAILURES = [...JSON_FAILURES, "SCHEMA_INVALID", "SUBJECT_MISMATCH"] as const;
export type EventFailure = (typeof EVENT_FAILURES)[number];

export type GuardedJson =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly code: JsonFailure; readonly reason: string };

export interface JsonLimits {
  /** Refuse more bytes than this (default: no limit beyond the server's max payload). */
  readonly maxBytes?: number;
  /** Refuse arrays and objects nested deeper than this (default MAX_JSON_DEPTH). */
  readonly maxDepth?: number;
}

export type GuardedParse<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly code: "TOO_DEEP" | "SCHEMA_INVALID"; readonly reason: string };

// fatal: bytes that are not UTF-8 are refused, never silently replaced with U+FFFD
const utf8 = new TextDecoder("utf-8", { fatal: true });

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Whether JSON bytes nest arrays and objects deeper than `max`, found by counting brackets
 * outside strings: no parse, no recursion, no allocation. Safe on UTF-8: bytes of multi-byte
 * characters are all >= 0x80, so they never look like brackets or quotes.
 */
export function jsonDepthExceeds(data: Uint8Array, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < data.length; i++) {
    const b = data[i];
    if (inString) {
      if (b === BACKSLASH) i++;
      else if (b === QUOTE) inString = false;
    } else if (b === QUOTE) {
      inString = true;
    } else if (b === OPEN_BRACE || b === OPEN_BRACKET) {
      if (++depth > max) return true;
    } else if (b === CLOSE_BRACE || b === CLOSE_BRACKET) {
      depth--;
    }
  }
  return false;
}

/**
 * Parses JSON bytes within limits; every failure is a value with a code, never an exception.
 * What it returns is safe to hand to recursive code (zod, canonical JSON, a preview): the depth
 * is checked on the bytes before parsing.
 */
export function parseJsonGuarded(data: Uint8Array, limits: JsonLimits = {}): GuardedJson {
  const maxDepth = limits.maxDepth ?? MAX_JSON_DEPTH;
  if (limits.maxBytes !== undefined && data.byteLength > limits.maxBytes) {
    return { ok: false, code: "TOO_LARGE", reason: `too large: ${data.byteLength} bytes, the limit is ${limits.maxBytes}` };
  }
  let text: string;
  try {
    text = utf8.decode(data);
  } catch {
    return { ok: false, code: "NOT_UTF8", reason: "not UTF-8: the bytes are not valid UTF-8 text" };
  }
  if (jsonDepthExceeds(data, maxDepth)) return { ok: false, code: "TOO_DEEP", reason: `JSON nested too deeply: more than ${maxDepth} levels` };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (err) {
    return { ok: false, code: "MALFORMED_JSON", reason: `malformed JSON: ${(err as Error).message}` };
  }
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

/**
 * Validates an already parsed value with a schema; never throws. Too deep a value is refused
 * before zod recurses into it (values from parseJsonGuarded are checked already: use
 * validateJson for those).
 */
export function safeParseGuarded<T>(schema: z.ZodType<T>, value: unknown, maxDepth: number = MAX_JSON_DEPTH): GuardedParse<T> {
  if (valueDepthExceeds(value, maxDepth)) return { ok: false, code: "TOO_DEEP", reason: `JSON nested too deeply: more than ${maxDepth} levels` };
  return validateJson(schema, value);
}

/** zod's safeParse, with a stack overflow inside it (too deep a value) as a value too. */
export function validateJson<T>(schema: z.ZodType<T>, value: unknown): GuardedParse<T> {
  let parsed: ReturnType<typeof schema.safeParse>;
  try {
    parsed = schema.safeParse(value);
  } catch (err) {
    if (err instanceof RangeError) return { ok: false, code: "TOO_DEEP", reason: `JSON nested too deeply to validate: ${err.message}` };
    throw err;
  }
  if (parsed.success) return { ok: true, value: parsed.data };
  const issue = parsed.error.issues[0];
  return { ok: false, code: "SCHEMA_INVALID", reason: `${issue?.path.join(".") ?? ""} ${issue?.message ?? ""}`.trim() };
}
