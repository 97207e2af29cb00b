import { describe, expect, it } from "vitest";
import { alignLeaves, longestIncreasing } from "./align.js";

describe("alignLeaves", () => {
  const sealed = ["a", "b", "c", "d", "e", "f"];

  it("matches an untouched copy, whatever it is numbered", () => {
    expect(alignLeaves(sealed, sealed)).toEqual({ matched: new Map(sealed.map((_, i) => [i, i])), moved: [], missing: [], unknown: [] });
  });

  it("tells a removed, an added and a changed message apart by position", () => {
    expect(alignLeaves(sealed, ["a", "b", "d", "e", "f"])).toMatchObject({ missing: [2], unknown: [], moved: [] });
    expect(alignLeaves(sealed, ["a", "b", "x", "c", "d", "e", "f"])).toMatchObject({ missing: [], unknown: [2], moved: [] });
    expect(alignLeaves(sealed, ["a", "b", "x", "d", "e", "f"])).toMatchObject({ missing: [2], unknown: [2], moved: [] });
  });

  it("names what moved, not everything between", () => {
    expect(alignLeaves(sealed, ["a", "c", "b", "d", "e", "f"]).moved).toHaveLength(1);
    expect(alignLeaves(sealed, ["f", "a", "b", "c", "d", "e"]).moved).toEqual([0]);
  });
});

describe("longestIncreasing", () => {
  it("finds one longest strictly increasing subsequence", () => {
    const values = [3, 1, 4, 1, 5, 9, 2, 6];
    const picked = longestIncreasing(values).map((i) => values[i]!);
    expect(picked).toHaveLength(4);
    for (let i = 1; i < picked.length; i++) expect(picked[i]!).toBeGreaterThan(picked[i - 1]!);
    expect(longestIncreasing([])).toEqual([]);
  });
});
