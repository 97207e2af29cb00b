import { describe, expect, it } from "vitest";
import { countStep } from "./delegation-count.js";

describe("countStep", () => {
  it("counts each child call once and reports its number", () => {
    const first = countStep(undefined, "c1", 2);
    expect(first).toEqual({ kind: "write", next: { calls: 1, callIds: ["c1"] }, calls: 1 });
    const again = countStep({ calls: 1, callIds: ["c1"] }, "c1", 2);
    expect(again).toEqual({ kind: "counted", calls: 1 });
  });

  it("writes nothing past the budget and reports the call as over it", () => {
    expect(countStep({ calls: 2, callIds: ["c1", "c2"] }, "c3", 2)).toEqual({ kind: "counted", calls: 3 });
  });
});
