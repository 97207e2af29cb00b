import { createHash, timingSafeEqual } from "node:crypto";

/** The digest a secret (a bearer token, a session id, a CSRF secret) is kept and compared as. */
export function secretDigest(secret: string): Buffer {
  return createHash("sha256").update(secret, "utf8").digest();
}

/**
 * Whether `given` is the secret whose digest is `expected`. Digests have one length, so neither
 * the time taken nor a length check tells a guesser how close it came.
 */
export function matchesSecret(given: string | undefined, expected: Buffer): boolean {
  return given !== undefined && timingSafeEqual(secretDigest(given), expected);
}
