import { describe, expect, it } from "vitest";
import { callsUsed, unprojected } from "./budget.js";

describe("callsUsed", () => {
  it("counts the projected calls of a run plus this process's own decisions not projected yet", () => {
    const own = new Map([
      ["c1", 10],
      ["c2", 12],
      ["c3", 15],
    ]);
    expect(callsUsed({ admitted: 4, seq: 12 }, own)).toBe(5);
    expect(callsUsed(undefined, own)).toBe(3);
    expect(callsUsed({ admitted: 9, seq: 15 }, own)).toBe(9);
  });

  it("forgets own decisions once the projection holds them", () => {
    expect([...unprojected({ admitted: 1, seq: 11 }, new Map([["a", 11], ["b", 12]])).keys()]).toEqual(["b"]);
  });
});
