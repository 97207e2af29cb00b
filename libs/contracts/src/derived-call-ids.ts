import { createHash } from "node:crypto";

/**
 * Call ids a client derives instead of drawing at random (an idempotency key's, an undo's) can be
 * worked out by anyone who knows what they are derived from. Each carries a tag of the principal it
 * belongs to, so the registry can refuse a request under a derived id from anyone else without
 * reading anything (`mayUseCallId`): a stranger cannot take the slot first. Random ids (`newId`)
 * start with a digit and are 26 characters, so they never look derived.
 */

/** An idempotency key: any text up to this many characters (it is hashed, never put on a subject). */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 256;

const TAG_CHARS = 12;
const DIGEST_CHARS = 28;
/** `k`: an idempotency key's id; `u`: an undo's. Then the owner's tag, then the digest. */
const DERIVED = /^[ku]([A-Za-z0-9_-]{12})[A-Za-z0-9_-]{28}$/;

function digest(parts: readonly string[]): string {
  // hashed as a JSON array, so no two lists of parts run together into the same text
  return createHash("sha256").update(JSON.stringify(parts)).digest("base64url");
}

/** The tag of the principal a derived id belongs to (72 bits of a hash of its name). */
export function ownerTagOf(principal: string): string {
  return digest(["warden-call-owner", principal]).slice(0, TAG_CHARS);
}

/**
 * The call id of a principal's idempotency key: the same principal and key always give the same
 * id, so a second request with the key lands on the first one's request subject, which the stream
 * keeps once: the server, not the client, keeps it to one call.
 */
export function idempotentCallId(principal: string, key: string): string {
  return `k${ownerTagOf(principal)}${digest(["warden-call-key", principal, key]).slice(0, DIGEST_CHARS)}`;
}

/**
 * The call id of the undo of `domain`/`callId` by its requester: one per original call, so the
 * server's one answer per call keeps a call from being undone twice.
 */
export function undoCallIdOf(principal: string, domain: string, callId: string): string {
  return `u${ownerTagOf(principal)}${digest(["warden-undo", principal, domain, callId]).slice(0, DIGEST_CHARS)}`;
}

/** Whether `principal` may request under `callId`: any id but one derived for another principal. */
export function mayUseCallId(principal: string, callId: string): boolean {
  const derived = DERIVED.exec(callId);
  return derived === null || derived[1] === ownerTagOf(principal);
}
