import { parseJsonGuarded, type GuardedJson, type JsonLimits } from "@warden/contracts/json";

const encoder = new TextEncoder();

export function encodeJson(value: unknown): Uint8Array {
  return encoder.encode(JSON.stringify(value));
}

/**
 * The bus's reader of JSON bytes: the guarded parser of @warden/contracts (codes TOO_LARGE,
 * NOT_UTF8, TOO_DEEP, MALFORMED_JSON; at most MAX_JSON_DEPTH deep unless `limits` say otherwise),
 * so everything read off the bus is safe to hand to recursive code. Never throws.
 */
export function decodeJson(data: Uint8Array, limits?: JsonLimits): GuardedJson {
  return parseJsonGuarded(data, limits);
}
