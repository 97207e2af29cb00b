import { createHash } from "node:crypto";

/** An idempotency key: any text up to this many characters (it is hashed, never put on a subject). */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 256;

/**
 * The call id of a principal's idempotency key: the same principal and key always give the same
 * id, so a second request with the key lands on the first one's request subject, which the stream
 * keeps once (append-once): the server, not this client, keeps it to one call. Base64url of a
 * SHA-256 is a safe token; the `k` marks ids made this way. The pair is hashed as a JSON array, so
 * no principal and key run together into another pair.
 */
export function idempotentCallId(principal: string, key: string): string {
  const digest = createHash("sha256").update(JSON.stringify(["warden-call-key", principal, key])).digest("base64url");
  return `k${digest.slice(0, 40)}`;
}
