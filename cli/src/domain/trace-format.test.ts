import { describe, expect, it } from "vitest";
import type { WardenEvent } from "@warden/contracts";
import { keyFields, traceText } from "./trace-format.js";

const env = {
  v: 1 as const,
  callId: "c1",
  domain: "customer",
  tool: "customer.message",
  principal: "planner",
  mode: "plan" as const,
  correlationId: "run1",
};

const events: WardenEvent[] = [
  {
    ...env,
    type: "ToolCallRequested",
    eventId: "e1",
    ts: "2025-01-01T00:00:00.000Z",
    causationId: null,
    data: { args: { customerId: "c9", text: "hello there" }, scope: null, flags: {} },
  },
  {
    ...env,
    type: "ToolPolicyChecked",
    eventId: "e2",
    ts: "2025-01-01T00:00:00.002Z",
    causationId: "e1",
    data: {
      version: "1.0.0",
      descriptorHash: `sha256:${"a".repeat(64)}`,
      grade: "send",
      argsHash: `sha256:${"b".repeat(64)}`,
      args: {},
      decision: "require_approval",
      reason: "send needs a human",
      ruleIds: ["default.send.plan"],
      policyVersion: "demo-1",
    },
  },
  { ...env, type: "ApprovalDenied", eventId: "e3", ts: "2025-01-01T00:01:00.000Z", causationId: "e2", data: { approvalId: "ap1", approver: "alice", reason: "wrong customer" } },
];

describe("trace text", () => {
  it("prints one line per event in order with time, type, principal and key fields", () => {
    const lines = traceText("c1", "customer", events).split("\n");
    expect(lines[0]).toBe("call c1 (domain customer, 3 events)");
    expect(lines[1]).toMatch(/^2025-01-01T00:00:00.000Z {2}ToolCallRequested {2}planner {2}tool=customer.message args=.*"customerId":"c9"/);
    expect(lines[2]).toContain('decision=require_approval rules=default.send.plan policy=demo-1 reason="send needs a human"');
    expect(lines[3]).toMatch(/ApprovalDenied +planner {2}approvalId=ap1 approver=alice reason="wrong customer"/);
  });

  it("shows a rejection's stage and error", () => {
    const rejected: WardenEvent = {
      ...env,
      type: "ToolCallRejected",
      eventId: "e9",
      ts: "2025-01-01T00:00:00.001Z",
      causationId: "e1",
      data: { stage: "registry", error: { code: "UNKNOWN_TOOL", message: "no tool", retryable: false } },
    };
    expect(keyFields(rejected)).toBe('stage=registry error="UNKNOWN_TOOL: no tool"');
  });
});
