import { describe, expect, it } from "vitest";
import { ReadWakes, RECHECK_MS } from "./read-wakes.js";

describe("ReadWakes: a waiting read's wakes, confirmed by the stream", () => {
  it("waits out the read's time when nothing woke it, and reads at once after a wake", () => {
    const w = new ReadWakes();
    expect(w.pauseMs(2_500)).toBe(2_500);
    w.woke("ToolCallFinished");
    expect(w.pauseMs(2_500)).toBe(0);
    expect(w.take()).toEqual(["ToolCallFinished"]);
  });

  it("reads a woken event the stream did not show yet again, after growing pauses, until it is found", () => {
    const w = new ReadWakes();
    w.woke("ToolCallFinished");
    const pauses: number[] = [];
    for (let attempt = 0; attempt < RECHECK_MS.length + 2; attempt++) {
      const types = w.take();
      expect(types).toEqual(["ToolCallFinished"]);
      w.confirm(types, () => false);
      pauses.push(w.pauseMs(2_500));
    }
    expect(pauses).toEqual([...RECHECK_MS, 250, 250]);
    // never longer than what is left of the read
    expect(w.pauseMs(30)).toBe(30);
    w.confirm(w.take(), (t) => t === "ToolCallFinished");
    expect(w.pauseMs(2_500)).toBe(2_500);
    expect(w.take()).toEqual([]);
  });

  it("reads a new wake at once even while another waits for its recheck, and starts the pauses over once all are found", () => {
    const w = new ReadWakes();
    w.woke("ApprovalRequested");
    w.confirm(w.take(), () => false);
    w.confirm(w.take(), () => false);
    expect(w.pauseMs(2_500)).toBe(RECHECK_MS[1]);
    w.woke("ToolCallFinished");
    expect(w.pauseMs(2_500)).toBe(0);
    const types = w.take();
    expect(types.sort()).toEqual(["ApprovalRequested", "ToolCallFinished"]);
    w.confirm(types, () => true);
    w.woke("ToolCallCancelled");
    w.confirm(w.take(), () => false);
    expect(w.pauseMs(2_500)).toBe(RECHECK_MS[0]);
  });
});
