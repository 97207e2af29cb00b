import { describe, expect, it } from "vitest";
import { ToolViewCompiledSchema } from "@warden/contracts/events";
import { type ToolView } from "@warden/contracts/descriptor";
import { toolViewCompiledEvent, type OwnCall } from "./view-event.js";

const own: OwnCall = {
  callId: "call1",
  domain: "agent",
  tool: "agent.reader",
  principal: "support-bot",
  mode: "plan",
  correlationId: "run1",
  parentCallId: "parent1",
  flags: {},
  scope: null,
  started: { eventId: "started1", hash: `sha256:${"5".repeat(64)}` },
  startedAtMs: 0,
};
const view: ToolView = {
  query: { principal: "agent-reader", mode: "llm", flags: {}, scope: null, only: ["kb.search", "kb.reindex", "web.search"] },
  policyVersion: "p1",
  tools: [{ name: "kb.search", wireName: "kb__search", version: "1.0.0", title: "S", description: "Search it.", grade: "read", level: "L0", inputSchema: { type: "object" }, decision: "allow", reason: "r", ruleIds: [] }],
  hidden: [
    { name: "kb.reindex", version: "1.0.0", grade: "read", reason: "feature_flag_off", detail: "flag off", ruleIds: ["gate.feature_flag"] },
    { name: "ticket.submit", version: "1.0.0", grade: "write", reason: "not_in_allowed_tools", detail: "not allowed", ruleIds: [] },
  ],
};

describe("toolViewCompiledEvent", () => {
  it("records what the model is shown and why allowed tools are hidden, on the subagent's own call", () => {
    const e = toolViewCompiledEvent(own, 2, view, ["kb.search", "kb.reindex", "web.search"], { eventId: "ev1", ts: "2025-01-01T00:00:00.000Z" });
    expect(ToolViewCompiledSchema.parse(e)).toEqual(e);
    expect(e).toMatchObject({ callId: "call1", causationId: "started1", causeHash: `sha256:${"5".repeat(64)}`, parentCallId: "parent1", principal: "support-bot" });
    expect(e.data).toEqual({
      turn: 2,
      viewPrincipal: "agent-reader",
      viewMode: "llm",
      policyVersion: "p1",
      tools: [{ name: "kb.search", wireName: "kb__search", version: "1.0.0", grade: "read" }],
      hidden: [
        { name: "kb.reindex", reason: "feature_flag_off", detail: "flag off" },
        { name: "web.search", reason: "not_registered", detail: "the registry has no tool named web.search" },
      ],
    });
  });

  it("records the active skills with why, and a skill's script above the subagent's grade as hidden", () => {
    const skills = {
      activated: [{ name: "refund-check", version: "1.0.0", hash: `sha256:${"a".repeat(64)}`, score: 5, reasons: ['trigger "refund" is in the task'] }],
      hidden: [{ name: "skill-refund-check.issue", reason: "above_subagent_grade", detail: "write above read" }],
    };
    const e = toolViewCompiledEvent(own, 1, view, ["kb.search"], { eventId: "ev2", ts: "2025-01-01T00:00:00.000Z" }, skills);
    expect(ToolViewCompiledSchema.parse(e)).toEqual(e);
    expect(e.data.skills).toEqual(skills.activated);
    expect(e.data.hidden).toContainEqual(skills.hidden[0]);
    expect(toolViewCompiledEvent(own, 1, view, ["kb.search"], { eventId: "ev3", ts: "2025-01-01T00:00:00.000Z" }, { activated: [], hidden: [] }).data).not.toHaveProperty("skills");
  });
});
