import { describe, expect, it } from "vitest";
import { type ApprovalRequested, type ToolArgsValidated, type ToolPolicyChecked } from "@warden/contracts/events";
import { argsHash } from "@warden/contracts/json";
import { checkChain } from "./check-chain.js";

const args = { ticket: "T-1", text: "closing" };
const dHash = `sha256:${"d".repeat(64)}`;
const envelope = {
  v: 1 as const,
  callId: "call1",
  domain: "desk",
  tool: "desk.close",
  principal: "bot",
  mode: "plan" as const,
  ts: "2030-01-01T00:00:00.000Z",
  correlationId: "run1",
};
const bound = { version: "1.0.0", descriptorHash: dHash, grade: "write" as const, argsHash: argsHash(args) };

const validated: ToolArgsValidated = {
  ...envelope,
  type: "ToolArgsValidated",
  eventId: "val1",
  causationId: "req1",
  causeHash: `sha256:${"c".repeat(64)}`,
  data: { ...bound, args, scope: null, flags: {} },
};
const checked: ToolPolicyChecked = {
  ...envelope,
  type: "ToolPolicyChecked",
  eventId: "pc1",
  causationId: "val1",
  causeHash: `sha256:${"c".repeat(64)}`,
  data: { ...bound, args, decision: "allow", reason: "ok", ruleIds: ["r1"], policyVersion: "p1" },
};
const waiting: ToolPolicyChecked = { ...checked, data: { ...checked.data, decision: "require_approval" } };
const request: ApprovalRequested = {
  ...envelope,
  type: "ApprovalRequested",
  eventId: "ar1",
  causationId: "pc1",
  causeHash: `sha256:${"c".repeat(64)}`,
  data: {
    ...bound,
    approvalId: "ap1",
    args,
    argsPreview: "{}",
    title: "Close",
    expiresAt: "2030-01-01T01:00:00.000Z",
    approvers: { human: true, requesterMayConfirm: false },
    reason: "a person confirms",
    ruleIds: ["r1"],
    policyVersion: "p1",
  },
};

function refusal(r: ReturnType<typeof checkChain>): { check: unknown; message: string } {
  expect(r.ok).toBe(false);
  if (r.ok) return { check: undefined, message: "" };
  expect(r.error.code).toBe("GRANT_INVALID");
  return { check: r.error.details?.["check"], message: r.error.message };
}

describe("checkChain", () => {
  it("accepts a policy decision that answers the call's validated args, and a request that answers the decision", () => {
    expect(checkChain({ validated, checked })).toEqual({ ok: true, value: undefined });
    expect(checkChain({ validated, checked: waiting, request })).toEqual({ ok: true, value: undefined });
  });

  it("refuses when the call has no ToolArgsValidated or no ToolPolicyChecked", () => {
    expect(refusal(checkChain({ validated: undefined, checked }))).toMatchObject({ check: "validation-missing" });
    expect(refusal(checkChain({ validated, checked: undefined, request }))).toMatchObject({ check: "policy-missing" });
  });

  it("refuses a decision caused by another event than the call's ToolArgsValidated", () => {
    const r = refusal(checkChain({ validated, checked: { ...checked, causationId: "val-other" } }));
    expect(r.check).toBe("policy-cause");
    expect(r.message).toMatch(/answers event val-other, not the call's ToolArgsValidated val1/);
  });

  it("refuses a decision about another call or tool", () => {
    expect(refusal(checkChain({ validated, checked: { ...checked, callId: "call2" } })).check).toBe("policy-call");
    expect(refusal(checkChain({ validated, checked: { ...checked, tool: "desk.delete" } })).check).toBe("policy-call");
  });

  it("refuses a decision on other args or another descriptor than the registry validated", () => {
    const otherArgs = { ...checked, data: { ...checked.data, argsHash: argsHash({ ticket: "T-2" }) } };
    expect(refusal(checkChain({ validated, checked: otherArgs })).check).toBe("policy-args");
    const otherDescriptor = { ...checked, data: { ...checked.data, descriptorHash: `sha256:${"e".repeat(64)}` } };
    expect(refusal(checkChain({ validated, checked: otherDescriptor })).check).toBe("policy-descriptor");
    const otherVersion = { ...checked, data: { ...checked.data, version: "2.0.0" } };
    expect(refusal(checkChain({ validated, checked: otherVersion })).check).toBe("policy-descriptor");
  });

  it("never lets a grant run a call the policy denied", () => {
    const denied = { ...checked, data: { ...checked.data, decision: "deny" as const } };
    expect(refusal(checkChain({ validated, checked: denied, request })).check).toBe("policy-denied");
  });

  it("refuses a request that does not answer the decision, or binds other args", () => {
    expect(refusal(checkChain({ validated, checked: waiting, request: { ...request, causationId: "pc-other" } })).check).toBe("request-cause");
    const otherArgs = { ...request, data: { ...request.data, argsHash: argsHash({ ticket: "T-2" }) } };
    expect(refusal(checkChain({ validated, checked: waiting, request: otherArgs })).check).toBe("request-binding");
  });
});
