import { describe, expect, it } from "vitest";
import { checkpointHash, eventLeaf, leafPrefixesOf, sealedSeqsOf } from "@warden/evidence";
import { CheckpointBuilder } from "./checkpoint-builder.js";

const leaf = (seq: number) => eventLeaf(`warden.call.kb.c${seq}.ToolArgsValidated`, Buffer.from(String(seq)));

describe("CheckpointBuilder", () => {
  it("cuts contiguous, chained ranges and starts the first where the stream does", () => {
    const b = new CheckpointBuilder({ index: 0, prev: null, fromSeq: undefined });
    expect(b.cut(new Date(), checkpointHash)).toBeUndefined();
    for (const seq of [5, 6, 7]) b.add(seq, leaf(seq), 0);
    const first = b.cut(new Date(), checkpointHash)!;
    expect(first).toMatchObject({ index: 0, fromSeq: 5, toSeq: 7, count: 3, prev: null, missing: [] });
    b.add(8, leaf(8), 0);
    const second = b.cut(new Date(), checkpointHash)!;
    expect(second).toMatchObject({ index: 1, fromSeq: 8, toSeq: 8, prev: checkpointHash(first) });
  });

  it("records sequences the stream no longer held as missing ranges, and ignores a redelivery", () => {
    const b = new CheckpointBuilder({ index: 4, prev: "sha256:" + "0".repeat(64), fromSeq: 10 });
    for (const seq of [12, 13, 13, 17]) b.add(seq, leaf(seq), 0);
    const s = b.cut(new Date(), checkpointHash)!;
    expect(s).toMatchObject({ fromSeq: 10, toSeq: 17, count: 3, missing: [[10, 11], [14, 16]] });
    expect(sealedSeqsOf(s)).toEqual([12, 13, 17]);
    expect(leafPrefixesOf(s)).toEqual([12, 13, 17].map((q) => leaf(q).subarray(0, 8).toString("hex")));
  });

  it("says how long the oldest unsealed message has waited", () => {
    const b = new CheckpointBuilder({ index: 0, prev: null, fromSeq: 1 });
    expect(b.waitedMs(1_000)).toBe(0);
    b.add(1, leaf(1), 1_000);
    b.add(2, leaf(2), 1_500);
    expect(b.waitedMs(3_000)).toBe(2_000);
  });
});
