import { createHash } from "node:crypto";

/**
 * Canonical JSON as RFC 8785 (JCS) writes it: object keys sorted by UTF-16 code units, no
 * whitespace, ECMAScript number and string forms, `undefined` members dropped. Two values that
 * mean the same thing hash the same, so an approver's argsHash binds exactly what runs, and an
 * auditor in any language re-checks a hash with a standard JCS library.
 * A value is read as `JSON.stringify` would write it (`toJSON` is called, a member named
 * `__proto__` is a member like any other), so the canonical JSON of a value held in memory is the
 * canonical JSON of the bytes it is written as.
 */
export function canonicalJson(value: unknown): string {
  try {
    return JSON.stringify(sortDeep(value));
  } catch (err) {
    if (err === HAS_INDEX_KEY) return writeSorted(value);
    throw err;
  }
}

/** Thrown by the fast path when it meets an object it cannot write sorted (see below). */
const HAS_INDEX_KEY = Symbol("index key");

/** A key JavaScript objects keep first in numeric order whatever the insertion order: an array index. */
function isIndexKey(key: string): boolean {
  return /^(?:0|[1-9]\d{0,9})$/.test(key) && Number(key) < 4_294_967_295;
}

/** The slow, plain way, for a value holding an object with index keys: every object written key by key. */
function writeSorted(value: unknown): string {
  if (value !== null && typeof value === "object" && typeof (value as { toJSON?: unknown }).toJSON === "function") {
    return writeSorted((value as { toJSON: () => unknown }).toJSON());
  }
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? "null" : writeSorted(v))).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const members: string[] = [];
    for (const key of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined) members.push(`${JSON.stringify(key)}:${writeSorted(v)}`);
    }
    return `{${members.join(",")}}`;
  }
  if (typeof value === "number" && !Number.isFinite(value)) throw new TypeError("canonicalJson: non-finite numbers are not JSON");
  return JSON.stringify(value);
}

function sortDeep(value: unknown): unknown {
  if (value !== null && typeof value === "object" && typeof (value as { toJSON?: unknown }).toJSON === "function") {
    return sortDeep((value as { toJSON: () => unknown }).toJSON());
  }
  if (Array.isArray(value)) return value.map((v) => (v === undefined ? null : sortDeep(v)));
  if (value !== null && typeof value === "object") {
    const own = Object.keys(value);
    // an object keeps index keys ("0", "42") first whatever order it is built in, so a sorted copy
    // would not write them sorted: such an object (rare; they come first, so one test finds them) is written here
    if (own.length > 0 && isIndexKey(own[0]!)) throw HAS_INDEX_KEY;
    // a plain object, not Object.create(null): V8 keeps those in dictionary mode, which made the
    // copy and its writing out twice as slow (issue 12); a `__proto__` key (JSON.parse makes it an
    // own member) is defined as an own member so it stays one
    const out: Record<string, unknown> = {};
    for (const key of own.sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v === undefined) continue;
      if (key === "__proto__") Object.defineProperty(out, key, { value: sortDeep(v), enumerable: true, writable: true, configurable: true });
      else out[key] = sortDeep(v);
    }
    return out;
  }
  if (typeof value === "number" && !Number.isFinite(value)) {
    throw new TypeError("canonicalJson: non-finite numbers are not JSON");
  }
  return value;
}

export function sha256Hex(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/** sha256 of the canonical JSON of a call's arguments, as `sha256:<hex>`. */
export function argsHash(args: unknown): string {
  return `sha256:${sha256Hex(canonicalJson(args))}`;
}
