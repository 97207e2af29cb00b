import { sha256Hex } from "@warden/contracts/json";

/** An object key JavaScript keeps first in numeric order: where the former canonical JSON was not RFC 8785. */
const INDEX_KEY_IN_JSON = /"(?:0|[1-9]\d{0,9})":/;

/**
 * The hash events written before canonical JSON became RFC 8785 (2026-12-03) named their cause
 * by: JSON.stringify of a key-sorted copy, which wrote index-like keys ("0", "42") first in
 * numeric order. It differs from today's only for JSON holding such a key, so it is computed
 * only for those (undefined otherwise): an auditor accepts either for a cause written back then.
 */
export function legacyMessageHash(data: Uint8Array): string | undefined {
  const text = new TextDecoder().decode(data);
  if (!INDEX_KEY_IN_JSON.test(text)) return undefined;
  try {
    return `sha256:${sha256Hex(JSON.stringify(sortedCopy(JSON.parse(text))))}`;
  } catch {
    return undefined;
  }
}

function sortedCopy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedCopy);
  if (value === null || typeof value !== "object") return value;
  const out = Object.create(null) as Record<string, unknown>;
  for (const key of Object.keys(value).sort()) out[key] = sortedCopy((value as Record<string, unknown>)[key]);
  return out;
}
