import { createHash } from "node:crypto";

/**
 * Canonical JSON: object keys sorted, no whitespace, `undefined` members dropped. Two values
 * that mean the same thing hash the same, so an approver's argsHash binds exactly what runs.
 * A value is read as `JSON.stringify` would write it (`toJSON` is called, a member named
 * `__proto__` is a member like any other), so the canonical JSON of a value held in memory is the
 * canonical JSON of the bytes it is written as.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortDeep(value));
}

function sortDeep(value: unknown): unknown {
  if (value !== null && typeof value === "object" && typeof (value as { toJSON?: unknown }).toJSON === "function") {
    return sortDeep((value as { toJSON: () => unknown }).toJSON());
  }
  if (Array.isArray(value)) return value.map((v) => (v === undefined ? null : sortDeep(v)));
  if (value !== null && typeof value === "object") {
    // a plain object, not Object.create(null): V8 keeps those in dictionary mode, which made the
    // copy and its writing out twice as slow (issue 12); a `__proto__` key (JSON.parse makes it an
    // own member) is defined as an own member so it stays one
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
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
