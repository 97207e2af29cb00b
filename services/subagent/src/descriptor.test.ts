import { describe, expect, it } from "vitest";
import { parseSubagentDescriptor, SubagentDefinitionError } from "./descriptor.js";
import { triageAgent } from "./demo/triage.js";

const base = { title: "T", description: "Use when something needs looking into.", instructions: "Do it.", allowedTools: ["kb.search"] };

describe("subagent descriptors", () => {
  it("fills the budget defaults: four turns unless said otherwise", () => {
    const d = parseSubagentDescriptor({ ...base, name: "agent.x" });
    expect(d).toMatchObject({ version: "1.0.0", context: "none", waitForApproval: false, budget: { maxTurns: 4, maxToolCalls: 8 } });
    expect(parseSubagentDescriptor(triageAgent).budget).toEqual({ maxTurns: 4, maxToolCalls: 6, maxTokens: 30_000, timeoutMs: 90_000 });
  });

  it("refuses a name outside domain agent, self-delegation and duplicate tools", () => {
    expect(() => parseSubagentDescriptor({ ...base, name: "kb.helper" })).toThrow(SubagentDefinitionError);
    expect(() => parseSubagentDescriptor({ ...base, name: "agent.x", allowedTools: ["agent.x"] })).toThrow(/delegate to itself/);
    expect(() => parseSubagentDescriptor({ ...base, name: "agent.x", allowedTools: ["kb.search", "kb.search"] })).toThrow(/listed twice/);
  });
});
