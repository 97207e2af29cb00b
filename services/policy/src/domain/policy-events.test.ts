import { describe, expect, it } from "vitest";
import { ToolCallRejectedSchema, ToolPolicyCheckedSchema, type ToolArgsValidated } from "@warden/contracts/events";
import { policyCheckedEvent, policyRejectedEvent } from "./policy-events.js";

const validated: ToolArgsValidated = {
  v: 1,
  type: "ToolArgsValidated",
  eventId: "val1",
  callId: "c1",
  domain: "kb",
  tool: "kb.search",
  principal: "bot",
  mode: "llm",
  ts: "2025-01-01T00:00:00.000Z",
  causationId: "req1",
  causeHash: `sha256:${"c".repeat(64)}`,
  correlationId: "run1",
  parentCallId: "parent1",
  data: {
    version: "1.0.0",
    descriptorHash: `sha256:${"a".repeat(64)}`,
    grade: "read",
    argsHash: `sha256:${"b".repeat(64)}`,
    args: { query: "x" },
    scope: null,
    flags: {},
  },
};

describe("policy events", () => {
  it("answers the validated call with a decision that carries the args, hashes and policy version", () => {
    const ev = policyCheckedEvent(validated, { decision: "deny", ruleIds: ["no"], reason: "closed" }, "v9", { eventId: "pc1", ts: "2025-01-01T00:00:01.000Z" });
    expect(ToolPolicyCheckedSchema.parse(ev)).toEqual(ev);
    expect(ev).toMatchObject({ causationId: "val1", correlationId: "run1", parentCallId: "parent1", principal: "bot" });
    expect(ev.data).toMatchObject({ args: { query: "x" }, argsHash: validated.data.argsHash, policyVersion: "v9", ruleIds: ["no"] });
  });

  it("rejects a denied call in answer to the decision, with its rules and policy version", () => {
    const checked = policyCheckedEvent(validated, { decision: "deny", ruleIds: ["budget.max_calls_per_run"], reason: "spent" }, "v9", { eventId: "pc1", ts: validated.ts });
    const rej = policyRejectedEvent(checked, { eventId: "rj1", ts: validated.ts });
    expect(ToolCallRejectedSchema.parse(rej)).toEqual(rej);
    expect(rej.causationId).toBe("pc1");
    expect(rej.data).toEqual({
      stage: "policy",
      error: { code: "BUDGET_EXCEEDED", message: "spent", retryable: false },
      ruleIds: ["budget.max_calls_per_run"],
      policyVersion: "v9",
    });
  });
});
