import { describe, expect, it } from "vitest";
import { type ToolArgsValidated } from "@warden/contracts/events";
import { descriptorHash, ToolDescriptorSchema, type ToolRecord } from "@warden/contracts/descriptor";
import { PolicyDocumentSchema } from "@warden/contracts/policy";
import { historyGateOf, RATE_RULES } from "@warden/policy-engine";
import { ATTENUATION_RULES } from "./attenuation.js";
import { budgetExceeded, decideCall, rateRefused, rejectionCode } from "./verdict.js";
import { toolRecordOf } from "@warden/testing";
import { validatedCall } from "../../test-support/validated-call.js";

const descriptor = ToolDescriptorSchema.parse({
  name: "ticket.submit",
  version: "1.0.0",
  title: "Submit a ticket",
  description: "Use it to file a support ticket for the customer.",
  inputSchema: { type: "object" },
  grade: "write",
});
const record = toolRecordOf(descriptor, { at: "2025-01-01T00:00:00.000Z" });

function validated(mode: ToolArgsValidated["mode"], hash = record.descriptorHash): ToolArgsValidated {
  return validatedCall(record, {
    mode,
    principal: "bot",
    descriptorHash: hash,
    args: { title: "t" },
    runId: "run1",
    envelope: { eventId: "e1", callId: "c1", ts: "2025-01-01T00:00:00.000Z", causationId: "e0" },
  });
}

const doc = PolicyDocumentSchema.parse({ version: "v1" });

describe("decideCall", () => {
  it("decides a bound call with the engine", () => {
    expect(decideCall(doc, record, validated("plan"))).toMatchObject({ decision: "allow", ruleIds: ["default.write.plan"] });
    const shown = PolicyDocumentSchema.parse({ version: "v1", llm: { showWrite: ["*"] } });
    expect(decideCall(shown, record, validated("llm"))).toMatchObject({ decision: "require_approval", ruleIds: ["default.write.llm"] });
  });

  it("denies a model's call to a write its ToolView does not list, as POLICY_DENIED view.not_shown", () => {
    const r = decideCall(doc, record, validated("llm"));
    expect(r).toMatchObject({ decision: "deny", ruleIds: ["view.not_shown", "llm.show_write"] });
    expect(rejectionCode(r.ruleIds)).toBe("POLICY_DENIED");
  });

  it("denies mode human to a caller the document does not name, as POLICY_DENIED with the gate's rule", () => {
    const r = decideCall(doc, record, validated("human"));
    expect(r).toMatchObject({ decision: "deny", ruleIds: ["gate.human_mode_needs_person"] });
    expect(r.reason).toMatch(/bot is not named in the policy document/);
    expect(rejectionCode(r.ruleIds)).toBe("POLICY_DENIED");
    const named = PolicyDocumentSchema.parse({ version: "v2", principals: { bot: { kind: "human" } } });
    expect(decideCall(named, record, validated("human"))).toMatchObject({ decision: "allow", ruleIds: ["default.write.human"] });
  });

  it("takes a tool's feature flag from the document's grant to the caller, never from the call", () => {
    const flagged = ToolDescriptorSchema.parse({ ...descriptor, featureFlag: "beta" });
    const rec: ToolRecord = { ...record, descriptor: flagged, descriptorHash: descriptorHash(flagged) };
    const asking = (flags: Record<string, boolean>): ToolArgsValidated => {
      const ev = validated("plan", rec.descriptorHash);
      return { ...ev, data: { ...ev.data, flags } };
    };
    expect(decideCall(doc, rec, asking({ beta: true }))).toMatchObject({ decision: "deny", ruleIds: ["gate.feature_flag"] });
    const granted = PolicyDocumentSchema.parse({ version: "v3", principals: { bot: { kind: "agent", flags: { beta: true } } } });
    expect(decideCall(granted, rec, asking({}))).toMatchObject({ decision: "allow" });
    expect(decideCall(granted, rec, asking({ beta: false }))).toMatchObject({ decision: "deny", ruleIds: ["gate.feature_flag"] });
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

describe("the rules that depend on history, as the engine knows them", () => {
  it("classifies every rule the stage writes beyond the document's own (what-if and decide leave these out)", () => {
    expect(historyGateOf(rateRefused({ rule: RATE_RULES.principal, limit: { ratePerSecond: 1, burst: 1 } }, "bot", 10).ruleIds)).toBe("rate_limit");
    expect(historyGateOf(rateRefused({ rule: RATE_RULES.tool, limit: { ratePerSecond: 1, burst: 1 } }, "bot", 10).ruleIds)).toBe("rate_limit");
    expect(historyGateOf(rateRefused({ rule: RATE_RULES.principalBudget, limit: { ratePerSecond: 1, burst: 1 } }, "bot", 10).ruleIds)).toBe("principal_budget");
    expect(historyGateOf(budgetExceeded("run1", 3).ruleIds)).toBe("run_budget");
    expect(historyGateOf(decideCall(doc, undefined, validated("plan")).ruleIds)).toBe("descriptor");
    for (const rule of Object.values(ATTENUATION_RULES)) {
      expect(historyGateOf([rule]), rule).toBe(rule === ATTENUATION_RULES.checked ? undefined : "delegation");
    }
    expect(historyGateOf(decideCall(doc, record, validated("plan")).ruleIds)).toBeUndefined();
  });
});
