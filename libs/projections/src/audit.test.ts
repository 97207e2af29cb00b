import { describe, expect, it } from "vitest";
import { type WardenEvent } from "@warden/contracts/events";
import { PolicyDocumentSchema } from "@warden/contracts/policy";
import { CRAFTED_POLICY, CRAFTED_VIOLATIONS, syntheticCall } from "@warden/testing";
import { auditRow, matchesAudit, shadowSummary, verifyCalls } from "./audit.js";
import type { CallModel } from "./call-model.js";
import { applyCallEvent } from "./reduce-call.js";
import { AUDIT_VIOLATION_KINDS } from "./violations.js";

const doc = PolicyDocumentSchema.parse(CRAFTED_POLICY);

function models(events: readonly WardenEvent[]): CallModel[] {
  const m = new Map<string, CallModel>();
  events.forEach((e, i) => m.set(e.callId, applyCallEvent(m.get(e.callId), e, i + 1)));
  return [...m.values()];
}

describe("verifyCalls", () => {
  it.each(AUDIT_VIOLATION_KINDS)("finds %s with the policy document", (kind) => {
    const found = verifyCalls(models(CRAFTED_VIOLATIONS[kind]("c1", "run1")), doc);
    expect(found.filter((f) => f.kind === kind).map((f) => f.callId)).toEqual(["c1"]);
  });

  it("passes clean calls, a human's grant and a requester's own confirmation in human mode", () => {
    const clean = [
      ...syntheticCall({ callId: "a", outcome: "approved", tool: "customer.message" }),
      ...syntheticCall({ callId: "b", outcome: "approved", tool: "customer.message", mode: "human", principal: "dave", approver: "dave", runId: "r2" }),
      ...syntheticCall({ callId: "c", outcome: "failed", runId: "r3" }),
    ];
    expect(verifyCalls(models(clean), doc)).toEqual([]);
  });

  it("reports a requester's own confirmation in human mode when the policy does not name them a person", () => {
    const selfConfirmed = syntheticCall({ callId: "m", outcome: "approved", tool: "customer.message", mode: "human", principal: "mallory", approver: "mallory" });
    expect(verifyCalls(models(selfConfirmed), doc)).toEqual([expect.objectContaining({ kind: "grant_by_requester", callId: "m" })]);
  });

  it("reports every violation a call model recorded, naming the event", () => {
    const found = verifyCalls(models(CRAFTED_VIOLATIONS.binding_mismatch("c1", "run1")), doc);
    expect(found).toEqual([expect.objectContaining({ kind: "binding_mismatch", callId: "c1", type: "ToolCallStarted", eventId: "c1-e3" })]);
  });
});

describe("audit rows", () => {
  it("summarise a call and filter on principal, tool, domain, mode and outcome", () => {
    const [m] = models(syntheticCall({ callId: "c1", outcome: "approved", tool: "customer.message" }));
    expect(auditRow(m!)).toMatchObject({
      callId: "c1",
      tool: "customer.message",
      status: "succeeded",
      decision: "require_approval",
      ruleIds: ["default.send.plan"],
      approver: "alice",
      durationMs: 18,
      violations: [],
    });
    expect(matchesAudit(m!, { principal: "bot", tool: "customer.message", domain: "customer", mode: "plan", outcome: "succeeded" })).toBe(true);
    expect(matchesAudit(m!, { outcome: "failed" })).toBe(false);
    expect(matchesAudit(m!, { mode: "llm" })).toBe(false);
  });
});

describe("shadow rules in the audit", () => {
  /** A call whose recorded decision carries what shadow rules would have decided. */
  function withShadow(callId: string, shadowDecision: "allow" | "require_approval" | "deny", rule: string): WardenEvent[] {
    return syntheticCall({ callId, outcome: "succeeded" }).map((e) =>
      e.type === "ToolPolicyChecked" ? { ...e, data: { ...e.data, shadow: { decision: shadowDecision, ruleIds: [rule], reason: "trying", shadowRuleIds: [rule] } } } : e,
    );
  }

  it("shows each call's shadow decision and groups the calls the shadow rules would have decided otherwise", () => {
    const ms = models([...withShadow("a", "deny", "kb-closed"), ...withShadow("b", "deny", "kb-closed"), ...withShadow("c", "allow", "kb-open"), ...syntheticCall({ callId: "d", outcome: "succeeded" })]);
    const rows = ms.map(auditRow);
    expect(rows.find((r) => r.callId === "a")?.shadow).toEqual({ decision: "deny", shadowRuleIds: ["kb-closed"], disagrees: true });
    expect(rows.find((r) => r.callId === "c")?.shadow).toEqual({ decision: "allow", shadowRuleIds: ["kb-open"], disagrees: false });
    expect(rows.find((r) => r.callId === "d")?.shadow).toBeUndefined();
    expect(shadowSummary(rows)).toEqual({
      matched: 3,
      disagree: 2,
      disagreements: [{ shadowRuleIds: ["kb-closed"], decision: "allow", shadowDecision: "deny", count: 2, callIds: ["a", "b"] }],
    });
  });

  it("never makes a disagreement a violation", () => {
    expect(verifyCalls(models(withShadow("a", "deny", "kb-closed")), doc)).toEqual([]);
  });
});
