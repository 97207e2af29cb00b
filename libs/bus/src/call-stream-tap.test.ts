import { describe, expect, it } from "vitest";
import { CallStreamTap, type TappedMessage } from "./call-stream-tap.js";

const msg = (seq: number): TappedMessage => ({ seq, subject: `warden.call.kb.c${seq}.ToolArgsValidated`, data: new TextEncoder().encode(`e${seq}`) });
const seqs = (ms: readonly TappedMessage[]) => ms.map((m) => m.seq);

describe("the call stream tap", () => {
  it("hands a reader what it holds from exactly the sequence asked, once", () => {
    const tap = new CallStreamTap();
    tap.offer([3, 4, 5, 6].map(msg));
    expect(seqs(tap.take(4))).toEqual([4, 5, 6]);
    expect(tap.take(7)).toEqual([]);
    tap.offer([7, 8].map(msg));
    expect(seqs(tap.take(7))).toEqual([7, 8]);
  });

  it("holds nothing for a reader behind it: the gap is the reader's own read", () => {
    const tap = new CallStreamTap();
    tap.offer([10, 11].map(msg));
    expect(tap.take(8)).toEqual([]);
    // a reader that read past it directly drops what it held
    expect(tap.take(12)).toEqual([]);
    tap.offer([11, 12, 13].map(msg));
    expect(seqs(tap.take(12))).toEqual([12, 13]);
  });

  it("starts a new run at a message that does not follow, and keeps the newest half past its bound", () => {
    const tap = new CallStreamTap(4);
    tap.offer([1, 2].map(msg));
    tap.offer([5, 6].map(msg));
    expect(tap.take(1)).toEqual([]);
    expect(seqs(tap.take(5))).toEqual([5, 6]);
    tap.offer([7, 8, 9, 10, 11].map(msg));
    expect(tap.take(8)).toEqual([]);
    tap.offer([12].map(msg));
    expect(seqs(tap.take(10))).toEqual([10, 11, 12]);
  });

  it("copies each message's bytes and forgets everything on reset", () => {
    const tap = new CallStreamTap();
    const m = msg(1);
    tap.offer([m]);
    m.data.fill(0);
    expect(new TextDecoder().decode(tap.take(1)[0]!.data)).toBe("e1");
    tap.offer([msg(2)]);
    tap.reset();
    expect(tap.take(2)).toEqual([]);
  });
});
