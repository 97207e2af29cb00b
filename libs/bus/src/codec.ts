import { jsonDepthExceeds } from "./json-depth.js";

const encoder = new TextEncoder();
// fatal: bytes that are not UTF-8 are refused, never silently replaced with U+FFFD
const decoder = new TextDecoder("utf-8", { fatal: true });

/**
 * How deep any JSON Warden decodes may nest: far below where recursive code overflows its stack
 * (zod's validation at ~1,500 levels, canonical JSON at ~3,000), with room above any event for
 * the replies and read models that wrap it.
 */
export const MAX_JSON_DEPTH = 512;

/**
 * How deep a ToolCallRequested may nest (its args sit two levels down). The registry refuses
 * deeper requests, so every event derived from one stays far inside MAX_JSON_DEPTH; a client may
 * refuse deeper args before sending.
 */
export const MAX_REQUEST_DEPTH = 64;

export const JSON_DECODE_CODES = ["too_large", "invalid_utf8", "too_deep", "malformed_json"] as const;
export type JsonDecodeCode = (typeof JSON_DECODE_CODES)[number];

export interface JsonDecodeFailure {
  readonly ok: false;
  readonly code: JsonDecodeCode;
  readonly reason: string;
}

export type JsonDecodeResult = { readonly ok: true; readonly value: unknown } | JsonDecodeFailure;

export interface JsonDecodeOptions {
  /** Refuse more bytes than this (default: no limit beyond the server's max payload). */
  readonly maxBytes?: number;
  /** Refuse objects and arrays nested deeper than this (default MAX_JSON_DEPTH). */
  readonly maxDepth?: number;
}

export function encodeJson(value: unknown): Uint8Array {
  return encoder.encode(JSON.stringify(value));
}

/**
 * Parses JSON bytes; every failure is a value with a code, never an exception. What it returns is
 * safe to hand to recursive code: at most `maxDepth` levels deep.
 */
export function decodeJson(data: Uint8Array, opts: JsonDecodeOptions = {}): JsonDecodeResult {
  const maxDepth = opts.maxDepth ?? MAX_JSON_DEPTH;
  if (opts.maxBytes !== undefined && data.length > opts.maxBytes) {
    return { ok: false, code: "too_large", reason: `too large: ${data.length} bytes, the limit is ${opts.maxBytes}` };
  }
  let text: string;
  try {
    text = decoder.decode(data);
  } catch {
    return { ok: false, code: "invalid_utf8", reason: "not UTF-8: the bytes are not valid UTF-8 text" };
  }
  if (jsonDepthExceeds(data, maxDepth)) {
    return { ok: false, code: "too_deep", reason: `JSON nested too deeply: more than ${maxDepth} levels` };
  }
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    return { ok: false, code: "malformed_json", reason: `malformed JSON: ${(err as Error).message}` };
  }
}
