import { describe, expect, it } from "vitest";
import { budgetStep } from "./budget.js";

describe("budgetStep", () => {
  it("counts the first call of a run as call 1", () => {
    expect(budgetStep(undefined, "c1", 2)).toEqual({ kind: "count", calls: 1, next: { calls: 1, callIds: ["c1"] } });
  });

  it("counts calls up to the maximum and refuses the next one without recording it", () => {
    const one = { calls: 1, callIds: ["c1"] };
    expect(budgetStep(one, "c2", 2)).toMatchObject({ kind: "count", calls: 2, next: { calls: 2, callIds: ["c1", "c2"] } });
    expect(budgetStep({ calls: 2, callIds: ["c1", "c2"] }, "c3", 2)).toEqual({ kind: "exceeded", calls: 2 });
  });

  it("does not count a call twice: a redelivered call keeps its place", () => {
    const full = { calls: 2, callIds: ["c1", "c2"] };
    expect(budgetStep(full, "c2", 2)).toEqual({ kind: "counted", calls: 2 });
    expect(budgetStep(full, "c1", 1)).toEqual({ kind: "counted", calls: 1 });
  });
});
