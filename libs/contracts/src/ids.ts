import { randomFillSync } from "node:crypto";

let lastMs = 0;
let seq = 0;

// One native call fills many ids' worth of randomness; per-id calls cost ~4% CPU under load.
const POOL_BYTES = 4096;
const pool = Buffer.alloc(POOL_BYTES);
let poolOffset = POOL_BYTES;

function random9(): string {
  if (poolOffset + 9 > POOL_BYTES) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const s = pool.toString("base64url", poolOffset, poolOffset + 9);
  poolOffset += 9;
  return s;
}

/**
 * A time-ordered unique id: 10 chars of millisecond time (base32, sortable), 4 of a
 * per-process sequence, 12 random (72 bits). Safe as a subject token.
 */
export function newId(): string {
  const now = Date.now();
  if (now === lastMs) seq = (seq + 1) & 0xfffff;
  else {
    lastMs = now;
    seq = 0;
  }
  return now.toString(32).padStart(10, "0") + seq.toString(32).padStart(4, "0") + random9();
}
