import { describe, expect, it } from "vitest";
import { ReadWakes, RECHECK_MS } from "./read-wakes.js";

/** Reads `w` again and again while the stream holds nothing, and returns each pause it asked for. */
function pausesWhileMissing(w: ReadWakes, left = 5_000): number[] {
  const pauses: number[] = [];
  for (let pause = w.pauseMs(left); pause < left; pause = w.pauseMs(left)) {
    pauses.push(pause);
    w.confirm(w.take(), () => false);
  }
  return pauses;
}

describe("ReadWakes: a waiting read's wakes, confirmed by the stream", () => {
  it("waits out the read's time when nothing woke it, and reads at once after a wake", () => {
    const w = new ReadWakes();
    expect(w.pauseMs(2_500)).toBe(2_500);
    w.woke("ToolCallFinished");
    expect(w.pauseMs(2_500)).toBe(0);
    expect(w.take()).toEqual(["ToolCallFinished"]);
  });

  it("reads a woken event the stream does not show yet again after growing pauses, and drops it after the last", () => {
    const w = new ReadWakes();
    w.woke("ToolCallFinished");
    expect(pausesWhileMissing(w)).toEqual([0, ...RECHECK_MS]);
    expect(w.take()).toEqual([]);
  });

  it("stops reading again once the stream holds the event, and never pauses longer than what is left of the read", () => {
    const w = new ReadWakes();
    w.woke("ToolCallFinished");
    w.confirm(w.take(), () => false);
    w.confirm(w.take(), () => false);
    expect(w.pauseMs(2_500)).toBe(RECHECK_MS[1]);
    expect(w.pauseMs(1)).toBe(1);
    w.confirm(w.take(), (t) => t === "ToolCallFinished");
    expect(w.pauseMs(2_500)).toBe(2_500);
  });

  it("keeps each event's pauses apart, and starts them over on a new wake of it", () => {
    const w = new ReadWakes();
    w.woke("ToolCallCancelled");
    for (let i = 0; i < 5; i++) w.confirm(w.take(), () => false);
    expect(w.pauseMs(2_500)).toBe(RECHECK_MS[4]);
    // another event's wake, not yet stored either, is read again after its own first pause
    w.woke("ApprovalRequested");
    expect(w.pauseMs(2_500)).toBe(0);
    w.confirm(w.take(), () => false);
    expect(w.pauseMs(2_500)).toBe(RECHECK_MS[0]);
    w.woke("ToolCallCancelled");
    w.confirm(w.take(), (t) => t === "ApprovalRequested");
    expect(w.pauseMs(2_500)).toBe(RECHECK_MS[0]);
  });
});
