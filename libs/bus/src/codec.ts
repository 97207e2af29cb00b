const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function encodeJson(value: unknown): Uint8Array {
  return encoder.encode(JSON.stringify(value));
}

/** Parses JSON bytes; a parse failure is a value, not an exception. */
export function decodeJson(data: Uint8Array): { ok: true; value: unknown } | { ok: false; reason: string } {
  try {
    return { ok: true, value: JSON.parse(decoder.decode(data)) };
  } catch (err) {
    return { ok: false, reason: `malformed JSON: ${(err as Error).message}` };
  }
}
