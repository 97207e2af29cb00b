import { describe, expect, it } from "vitest";
import { nextProjectionStep, skipPastAgedOut } from "./projection-step.js";

describe("the next projection step", () => {
  it("applies the consecutive run after the cursor, at most a batch", () => {
    expect(nextProjectionStep(2, new Set([3, 4, 5, 8]), 10)).toEqual({ kind: "apply", from: 3, to: 5 });
    expect(nextProjectionStep(2, new Set([3, 4, 5, 8]), 2)).toEqual({ kind: "apply", from: 3, to: 4 });
  });

  it("waits for the sequence after the cursor when only later ones are held", () => {
    expect(nextProjectionStep(2, new Set([9, 5, 6]), 10)).toEqual({ kind: "wait", missing: 3, lowestHeld: 5 });
  });

  it("is idle when nothing is held beyond the cursor", () => {
    expect(nextProjectionStep(7, new Set(), 10)).toEqual({ kind: "idle" });
    expect(nextProjectionStep(7, new Set([6, 7]), 10)).toEqual({ kind: "idle" });
  });
});

describe("skipping what aged out of the stream", () => {
  it("moves the cursor to just before the lowest held sequence when the gap is gone from the stream", () => {
    expect(skipPastAgedOut(2, 10, 12)).toBe(9);
    expect(skipPastAgedOut(2, 10, 10)).toBe(9);
  });

  it("keeps waiting while the stream still has the missing sequence", () => {
    expect(skipPastAgedOut(2, 10, 3)).toBeUndefined();
    expect(skipPastAgedOut(2, 10, 1)).toBeUndefined();
  });

  it("keeps waiting when the held sequence is itself beyond the stream's first", () => {
    expect(skipPastAgedOut(2, 20, 12)).toBeUndefined();
  });
});
