import { describe, expect, it } from "vitest";
import { agentBudgetCeiling, agentBudgetJsonSchema, effectiveAgentBudget, isAgentTool, subagentPrincipal } from "./delegation.js";

const ceiling = { maxTurns: 4, maxToolCalls: 6, maxTokens: 30_000, timeoutMs: 90_000 };
const schema = { type: "object", properties: { task: { type: "string" }, budget: agentBudgetJsonSchema(ceiling) } };

describe("delegation conventions", () => {
  it("names a subagent's principal after its capability and refuses other domains", () => {
    expect(subagentPrincipal("agent.triage")).toBe("agent-triage");
    expect(isAgentTool("agent.triage")).toBe(true);
    expect(isAgentTool("kb.search")).toBe(false);
    expect(() => subagentPrincipal("kb.search")).toThrow(/not an agent/);
  });

  it("reads back the budget ceiling written into an agent tool's inputSchema", () => {
    expect(agentBudgetCeiling(schema)).toEqual(ceiling);
    expect(agentBudgetCeiling({ type: "object", properties: {} })).toBeUndefined();
  });

  it("lowers the ceiling by the call's budget argument, never raises it", () => {
    expect(effectiveAgentBudget(schema, { task: "x" })).toEqual(ceiling);
    expect(effectiveAgentBudget(schema, { task: "x", budget: { maxToolCalls: 2, timeoutMs: 999_999 } })).toEqual({ ...ceiling, maxToolCalls: 2 });
    expect(effectiveAgentBudget(schema, { task: "x", budget: { maxToolCalls: 0 } })?.maxToolCalls).toBe(0);
    expect(effectiveAgentBudget({ type: "object" }, { task: "x" })).toBeUndefined();
  });
});
