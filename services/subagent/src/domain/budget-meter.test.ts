import { describe, expect, it } from "vitest";
import { BudgetMeter, NESTED_TIME_MARGIN_MS } from "./budget-meter.js";

const budget = { maxTurns: 2, maxToolCalls: 3, maxTokens: 1_000, timeoutMs: 10_000 };

describe("BudgetMeter", () => {
  it("allows turns until the turn, token or time budget is spent, and names which", () => {
    const m = new BudgetMeter(budget, 0);
    expect(m.beforeTurn(0)).toBeUndefined();
    m.startTurn();
    m.startTurn();
    expect(m.beforeTurn(0)).toBe("turns");
    const t = new BudgetMeter(budget, 0);
    t.addTokens(1_000);
    expect(t.beforeTurn(0)).toBe("tokens");
    expect(new BudgetMeter(budget, 0).beforeTurn(9_950)).toBe("time");
  });

  it("counts a nested subagent's spending as its own", () => {
    const m = new BudgetMeter(budget, 0);
    m.addToolCall();
    m.addNested({ toolCalls: 1, tokens: 300 });
    expect(m.toolCallsLeft()).toBe(1);
    expect(m.usage(500)).toEqual({ turns: 0, toolCalls: 2, tokens: 300, ms: 500 });
  });

  it("gives a nested subagent what is left after the call to it, within what its caller asked", () => {
    const m = new BudgetMeter(budget, 0);
    m.addToolCall();
    m.addTokens(400);
    expect(m.nestedBudget(2_000, undefined)).toEqual({ maxToolCalls: 1, maxTokens: 600, timeoutMs: 8_000 - NESTED_TIME_MARGIN_MS });
    expect(m.nestedBudget(2_000, { maxToolCalls: 9, maxTokens: 100, maxTurns: 1 })).toEqual({ maxTurns: 1, maxToolCalls: 1, maxTokens: 100, timeoutMs: 7_000 });
    expect(m.nestedBudget(9_500, undefined)).toBeUndefined();
  });
});
