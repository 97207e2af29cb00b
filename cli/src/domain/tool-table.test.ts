import { describe, expect, it } from "vitest";
import type { ToolView } from "@warden/contracts";
import { toolViewText } from "./tool-table.js";

const view: ToolView = {
  query: { principal: "support-bot", mode: "llm", flags: { kbAdmin: false }, scope: null },
  policyVersion: "demo-1",
  tools: [
    {
      name: "kb.search",
      wireName: "kb__search",
      version: "1.0.0",
      title: "Search",
      description: "Use when...",
      grade: "read",
      inputSchema: {},
      decision: "allow",
      reason: "reads are allowed",
      ruleIds: ["default.read.llm"],
    },
  ],
  hidden: [{ name: "customer.message", version: "1.0.0", grade: "send", reason: "send_never_listed_for_llm", detail: "a model never sees send tools", ruleIds: [] }],
};

describe("toolViewText", () => {
  it("lists visible tools with their decision and rule", () => {
    const text = toolViewText(view, false);
    expect(text).toContain("tools for support-bot in llm mode");
    expect(text).toMatch(/kb\.search\s+kb__search\s+1\.0\.0\s+read\s+allow\s+reads are allowed \[default\.read\.llm\]/);
    expect(text).not.toContain("customer.message");
  });

  it("adds hidden tools and their reasons when explaining", () => {
    expect(toolViewText(view, true)).toMatch(/customer\.message\s+1\.0\.0\s+send\s+send_never_listed_for_llm/);
  });
});
