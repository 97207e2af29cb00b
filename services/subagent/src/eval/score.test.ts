import { describe, expect, it } from "vitest";
import { argPasses, report, scoreCase } from "./score.js";

describe("eval scoring", () => {
  it("checks arguments by dotted path, by value or by a word they contain", () => {
    expect(argPasses({ fields: { priority: "high" } }, { path: "fields.priority", equals: "high" })).toBe(true);
    expect(argPasses({ query: "Refund for order" }, { path: "query", includes: "refund" })).toBe(true);
    expect(argPasses({ id: "2" }, { path: "id", equals: 2 })).toBe(false);
  });

  it("computes precision over calls, recall over prompts that need a tool, and abstention over those that must not", () => {
    const tool = { id: "a", prompt: "p", tool: "kb.search", args: [{ path: "query", includes: "x" }] } as const;
    const none = { id: "n", prompt: "p", tool: null } as const;
    const r = report([
      scoreCase(tool, [{ tool: "kb.search", args: { query: "x" }, argsValid: true }]),
      scoreCase(tool, [{ tool: "session.fetch", args: {}, argsValid: false }]),
      scoreCase(none, []),
      scoreCase(none, [{ tool: "kb.search", args: { query: "y" }, argsValid: true }]),
    ]);
    expect(r).toMatchObject({ precision: 1 / 3, recall: 1 / 2, abstention: 1 / 2, argValidity: 2 / 3, argMatch: 1 });
    expect(report([]).precision).toBeNull();
  });
});
