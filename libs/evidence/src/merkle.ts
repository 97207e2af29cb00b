import { createHash } from "node:crypto";

/**
 * The Merkle tree of RFC 6962 (Certificate Transparency): leaves and inner nodes are hashed with
 * different prefixes, so a leaf can never pass for a node. A checkpoint signs one root over its
 * range; an event's inclusion can later be proven with log2(n) hashes.
 */

const LEAF = Buffer.from([0]);
const NODE = Buffer.from([1]);
const SEPARATOR = Buffer.from([0]);

/**
 * The leaf of one stored message: its subject and its exact bytes. The stream sequence is left
 * out on purpose, so a copy restored with other sequence numbers still lines up with what was
 * sealed and a change is found where it is, not everywhere after it.
 */
export function eventLeaf(subject: string, data: Uint8Array): Buffer {
  return createHash("sha256").update(LEAF).update(subject).update(SEPARATOR).update(data).digest();
}

/** The root over leaves in order (the hash of nothing for an empty list). */
export function merkleRoot(leaves: readonly Uint8Array[]): Buffer {
  if (leaves.length === 0) return createHash("sha256").digest();
  let level: Uint8Array[] = [...leaves];
  // pairing left to right and carrying an odd last node up gives RFC 6962's tree shape
  while (level.length > 1) {
    const next: Uint8Array[] = [];
    for (let i = 0; i < level.length; i += 2) {
      const left = level[i]!;
      const right = level[i + 1];
      next.push(right === undefined ? left : createHash("sha256").update(NODE).update(left).update(right).digest());
    }
    level = next;
  }
  return Buffer.from(level[0]!);
}
