import { describe, expect, it } from "vitest";
import { summaryOf } from "./output.js";

const budget = { maxTurns: 4, maxToolCalls: 3, maxTokens: 500, timeoutMs: 1_500 };
const usage = { turns: 2, toolCalls: 1, tokens: 120, ms: 40 };

describe("summaryOf", () => {
  it("says an answered run's cost and what waits for approval or was refused", () => {
    const calls = [
      { callId: "c1", tool: "ticket.submit", status: "awaiting_approval" as const, ok: false, approvalId: "a1" },
      { callId: null, tool: "x__y", status: "refused" as const, ok: false },
    ];
    expect(summaryOf("answer", usage, budget, calls)).toBe("answered after 2 turns, 1 tool call, 120 tokens, 40 ms; 1 waiting for approval, 1 refused");
  });

  it("names the budget that ended a partial run", () => {
    expect(summaryOf("turns", usage, budget, [])).toMatch(/^partial result: the turn budget \(4 turns\) ran out/);
    expect(summaryOf("toolCalls", usage, budget, [])).toMatch(/tool-call budget \(3 calls\)/);
    expect(summaryOf("tokens", usage, budget, [])).toMatch(/token budget \(500 tokens\)/);
    expect(summaryOf("time", usage, budget, [])).toMatch(/time budget \(1500 ms\)/);
  });
});
