import { describe, expect, it } from "vitest";
import { agentBudgetCeiling } from "@warden/contracts/policy";
import { AgentArgsSchema, agentInputSchema } from "./agent-input.js";

const ceiling = { maxTurns: 4, maxToolCalls: 6, maxTokens: 30_000, timeoutMs: 90_000 };

describe("agentInputSchema", () => {
  it("takes a task, the context the descriptor inherits, and a budget capped at the ceiling", () => {
    const none = agentInputSchema("none", ceiling);
    expect(Object.keys(none["properties"] as object)).toEqual(["task", "budget"]);
    expect(Object.keys(agentInputSchema("summary", ceiling)["properties"] as object)).toEqual(["task", "summary", "budget"]);
    expect(Object.keys(agentInputSchema("refs", ceiling)["properties"] as object)).toEqual(["task", "refs", "budget"]);
    expect(none).toMatchObject({ required: ["task"], additionalProperties: false });
    // the policy reads the ceiling back from the registered schema
    expect(agentBudgetCeiling(none)).toEqual(ceiling);
  });

  it("parses what the registry let through", () => {
    expect(AgentArgsSchema.parse({ task: "t", refs: ["c1"], budget: { maxToolCalls: 1 } })).toEqual({ task: "t", refs: ["c1"], budget: { maxToolCalls: 1 } });
    expect(AgentArgsSchema.safeParse({ task: "" }).success).toBe(false);
  });
});
