import { describe, expect, it } from "vitest";
import { unifiedDiff } from "./text-diff.js";

describe("unifiedDiff", () => {
  const labels = { before: "in force", after: "policy.yaml" };

  it("is empty for equal texts", () => {
    expect(unifiedDiff("a\nb\n", "a\nb\n", labels)).toBe("");
  });

  it("shows changed lines with two lines of context, in hunks", () => {
    const before = ["version: v1", "rules:", "  - id: a", "    effect: deny", "  - id: b", "    effect: allow", "x: 1", "y: 2", "z: 3", "w: 4"].join("\n");
    const after = ["version: v2", "rules:", "  - id: a", "    effect: deny", "  - id: b", "    effect: allow", "x: 1", "y: 2", "z: 3", "w: 5"].join("\n");
    expect(unifiedDiff(before, after, labels).split("\n")).toEqual([
      "--- in force",
      "+++ policy.yaml",
      "@@ -1,3 +1,3 @@",
      "-version: v1",
      "+version: v2",
      " rules:",
      "   - id: a",
      "@@ -8,3 +8,3 @@",
      " y: 2",
      " z: 3",
      "-w: 4",
      "+w: 5",
    ]);
  });

  it("shows an added document whole against nothing", () => {
    expect(unifiedDiff("", "version: v1\n", labels).split("\n")).toEqual(["--- in force", "+++ policy.yaml", "@@ -0,0 +1,1 @@", "+version: v1"]);
  });
});
