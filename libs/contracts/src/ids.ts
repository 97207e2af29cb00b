import { randomBytes } from "node:crypto";

let lastMs = 0;
let seq = 0;

/**
 * A time-ordered unique id: 10 chars of millisecond time (base32hex, sortable), 4 of a
 * per-process sequence, 12 random. Safe as a subject token.
 */
export function newId(): string {
  const now = Date.now();
  if (now === lastMs) seq = (seq + 1) & 0xfffff;
  else {
    lastMs = now;
    seq = 0;
  }
  return (
    now.toString(32).padStart(10, "0") +
    seq.toString(32).padStart(4, "0") +
    randomBytes(8).toString("base64url").slice(0, 12)
  );
}
