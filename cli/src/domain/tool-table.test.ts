import { describe, expect, it } from "vitest";
import { descriptorHash, ToolDescriptorSchema, type ToolDescriptorInput, type ToolRecord, type ToolView } from "@warden/contracts/descriptor";
import { toolListText, toolViewText } from "./tool-table.js";

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
      level: "L0",
      actionType: "search",
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
    // within 100 columns: the reason is cut first (--json has it whole)
    expect(text).toMatch(/kb\.search\s+kb__search\s+1\.0\.0\s+read\s+L0\s+search\s+allow\s+-\s+reads are allowed \[default\.…/);
    expect(text.split("\n").every((l) => l.length <= 100)).toBe(true);
    expect(text).not.toContain("customer.message");
  });

  it("says whether a tool acts as the caller, with their own credentials, or as the service", () => {
    const { actionType: _none, ...search } = view.tools[0]!;
    const crm = { ...search, name: "crm.lookup", wireName: "crm__lookup", level: "L3" as const, actsAs: "caller" as const };
    const text = toolViewText({ ...view, tools: [...view.tools, crm] }, false);
    expect(text).toMatch(/GRADE\s+LEVEL\s+ACTION\s+ON CALL\s+ACTS AS\s+WHY/);
    // a tool that declares no action type: its level is derived, its action shown as "-"
    expect(text).toMatch(/crm\.lookup\s+crm__lookup\s+1\.0\.0\s+read\s+L3\s+-\s+allow\s+caller\s+reads are allowed/);
  });

  it("says how many tools a capped view left out, and how to ask for them", () => {
    const text = toolViewText({ ...view, omitted: { count: 12, maxTools: 20, capFrom: "default", hint: "…" } }, false);
    expect(text).toContain("12 more not listed: a view without an intent shows at most 20 (the default), reads first;");
    expect(text).toContain("ask with an intent (warden resolve --goal TEXT) or for more (--max-tools N)");
    expect(text.split("\n").every((l) => l.length <= 100)).toBe(true);
    expect(toolViewText(view, false)).not.toContain("more not listed");
  });

  it("adds hidden tools and their reasons when explaining", () => {
    expect(toolViewText(view, true)).toMatch(/customer\.message\s+1\.0\.0\s+send\s+send_never_listed_for_llm/);
  });
});

describe("toolListText", () => {
  const at = "2030-01-01T00:00:00.000Z";
  const recordOf = (over: Partial<ToolDescriptorInput>): ToolRecord => {
    const descriptor = ToolDescriptorSchema.parse({ version: "1.0.0", title: "T", description: "Use when testing the tool list of the CLI.", inputSchema: { type: "object" }, grade: "read", ...over });
    return { descriptor, descriptorHash: descriptorHash(descriptor), status: "enabled", registeredAt: at, statusChangedAt: at };
  };

  it("shows each version's permission level, declared or derived, and its action type, within the text width", () => {
    const text = toolListText([
      recordOf({ name: "kb.search", actionType: "search" }),
      recordOf({ name: "notes.erase", grade: "write", destructive: true, actionType: "delete" }),
      recordOf({ name: "crm.sync", grade: "write", openWorld: true }),
    ]);
    const lines = text.split("\n");
    expect(lines[0]).toMatch(/^NAME\s+VERSION\s+GRADE\s+LEVEL\s+ACTION\s+STATUS/);
    expect(text).toMatch(/kb\.search\s+1\.0\.0\s+read\s+L0\s+search\s+enabled/);
    expect(text).toMatch(/notes\.erase\s+1\.0\.0\s+write\s+L5\s+delete\s+enabled/);
    expect(text).toMatch(/crm\.sync\s+1\.0\.0\s+write\s+L4\s+-\s+enabled/);
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThanOrEqual(100);
  });
});
