import { describe, expect, it } from "vitest";
import {
  argsHash,
  descriptorHash,
  PolicyDocumentSchema,
  ToolDescriptorSchema,
  type ToolArgsValidated,
  type ToolRecord,
} from "@warden/contracts";
import { budgetExceeded, decideCall, rejectionCode } from "./verdict.js";

const descriptor = ToolDescriptorSchema.parse({
  name: "ticket.submit",
  version: "1.0.0",
  title: "Submit a ticket",
  description: "Use it to file a support ticket for the customer.",
  inputSchema: { type: "object" },
  grade: "write",
});
const record: ToolRecord = {
  descriptor,
  descriptorHash: descriptorHash(descriptor),
  status: "enabled",
  registeredAt: "2025-01-01T00:00:00.000Z",
  statusChangedAt: "2025-01-01T00:00:00.000Z",
};

function validated(mode: ToolArgsValidated["mode"], hash = record.descriptorHash): ToolArgsValidated {
  const args = { title: "t" };
  return {
    v: 1,
    type: "ToolArgsValidated",
    eventId: "e1",
    callId: "c1",
    domain: "ticket",
    tool: "ticket.submit",
    principal: "bot",
    mode,
    ts: "2025-01-01T00:00:00.000Z",
    causationId: "e0",
    correlationId: "run1",
    data: { version: "1.0.0", descriptorHash: hash, grade: "write", argsHash: argsHash(args), args, scope: null, flags: {} },
  };
}

const doc = PolicyDocumentSchema.parse({ version: "v1" });

describe("decideCall", () => {
  it("decides a bound call with the engine", () => {
    expect(decideCall(doc, record, validated("plan"))).toMatchObject({ decision: "allow", ruleIds: ["default.write.plan"] });
    expect(decideCall(doc, record, validated("llm"))).toMatchObject({ decision: "require_approval", ruleIds: ["default.write.llm"] });
  });

  it("denies a call whose descriptor hash differs from the stored one", () => {
    const r = decideCall(doc, record, validated("plan", `sha256:${"0".repeat(64)}`));
    expect(r).toMatchObject({ decision: "deny", ruleIds: ["invariant.descriptor_bound"] });
    expect(rejectionCode(r.ruleIds)).toBe("DESCRIPTOR_CHANGED");
  });

  it("denies a call whose descriptor version is not stored at all", () => {
    expect(decideCall(doc, undefined, validated("plan"))).toMatchObject({ decision: "deny", ruleIds: ["invariant.descriptor_bound"] });
  });
});

describe("rejectionCode", () => {
  it("names a budget refusal BUDGET_EXCEEDED and any other denial POLICY_DENIED", () => {
    expect(rejectionCode(budgetExceeded("run1", 3).ruleIds)).toBe("BUDGET_EXCEEDED");
    expect(rejectionCode(["gate.scope"])).toBe("POLICY_DENIED");
    expect(rejectionCode(["my-rule"])).toBe("POLICY_DENIED");
  });
});
