import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { eventLeaf, merkleRoot } from "./merkle.js";

/** RFC 6962's definition, recursively: split at the largest power of two below n. */
function referenceRoot(leaves: readonly Buffer[]): Buffer {
  if (leaves.length === 0) return createHash("sha256").digest();
  if (leaves.length === 1) return leaves[0]!;
  let k = 1;
  while (k * 2 < leaves.length) k *= 2;
  return createHash("sha256").update(Buffer.from([1])).update(referenceRoot(leaves.slice(0, k))).update(referenceRoot(leaves.slice(k))).digest();
}

describe("merkleRoot", () => {
  it("is RFC 6962's tree for every size up to 70", () => {
    const leaves = Array.from({ length: 70 }, (_, i) => eventLeaf(`warden.call.kb.c${i}.ToolArgsValidated`, Buffer.from(`{"i":${i}}`)));
    for (let n = 0; n <= leaves.length; n++) expect(merkleRoot(leaves.slice(0, n)).equals(referenceRoot(leaves.slice(0, n))), `n=${n}`).toBe(true);
  });

  it("changes with any byte of a message, its subject, or the order of two messages", () => {
    const a = eventLeaf("warden.call.kb.c1.ToolCallRequested.bot", Buffer.from('{"args":{"q":"a"}}'));
    const b = eventLeaf("warden.call.kb.c1.ToolArgsValidated", Buffer.from('{"args":{"q":"a"}}'));
    const root = merkleRoot([a, b]);
    expect(merkleRoot([eventLeaf("warden.call.kb.c1.ToolCallRequested.bot", Buffer.from('{"args":{"q":"b"}}')), b]).equals(root)).toBe(false);
    expect(merkleRoot([eventLeaf("warden.call.kb.c2.ToolCallRequested.bot", Buffer.from('{"args":{"q":"a"}}')), b]).equals(root)).toBe(false);
    expect(merkleRoot([b, a]).equals(root)).toBe(false);
  });

  it("keeps a leaf from passing for an inner node (domain separation)", () => {
    const a = eventLeaf("s.a", Buffer.from("1"));
    const b = eventLeaf("s.b", Buffer.from("2"));
    const node = merkleRoot([a, b]);
    // a message whose bytes are the two children's is still not their node: leaves are prefixed 0, nodes 1
    expect(eventLeaf("", Buffer.concat([a, b])).equals(node)).toBe(false);
    expect(createHash("sha256").update(Buffer.from([1])).update(a).update(b).digest().equals(node)).toBe(true);
  });
});
