import { describe, expect, it } from "vitest";
import type { WardenEvent } from "@warden/contracts/events";
import { CRAFTED_VIOLATIONS, SYNTHETIC_OUTCOMES, syntheticCall, type SyntheticOutcome } from "@warden/testing";
import type { CallModel } from "./call-model.js";
import { applyCallEvent, linkChildCall } from "./reduce-call.js";
import { CALL_VIOLATION_KINDS } from "./violations.js";

/** Folds events of any calls into call models, numbering them as a stream would. */
function fold(events: readonly WardenEvent[]): Map<string, CallModel> {
  const models = new Map<string, CallModel>();
  events.forEach((e, i) => models.set(e.callId, applyCallEvent(models.get(e.callId), e, i + 1)));
  return models;
}

const EXPECTED: Record<SyntheticOutcome, CallModel["status"]> = {
  succeeded: "succeeded",
  failed: "failed",
  rejected: "rejected",
  policy_denied: "rejected",
  approved: "succeeded",
  approval_denied: "denied",
  expired: "expired",
  crashed: "outcome_unknown",
  rerun: "succeeded",
};

describe("the call state machine", () => {
  it.each(SYNTHETIC_OUTCOMES)("ends a %s call in its state with no violation", (outcome) => {
    const m = fold(syntheticCall({ callId: "c1", outcome })).get("c1")!;
    expect(m.status).toBe(EXPECTED[outcome]);
    expect(m.violations).toEqual([]);
    expect(m.events.map((e) => e.seq)).toEqual(m.events.map((_, i) => i + 1));
  });

  it("passes through each state of an approved call in order", () => {
    const states: string[] = [];
    let m: CallModel | undefined;
    syntheticCall({ callId: "c1", outcome: "approved", tool: "customer.message" }).forEach((e, i) => {
      m = applyCallEvent(m, e, i + 1);
      states.push(m.status);
    });
    expect(states).toEqual(["requested", "validated", "awaiting_approval", "awaiting_approval", "approved", "running", "succeeded"]);
    expect(m!.approval).toMatchObject({ outcome: "granted", approver: "alice", approvalId: "c1-a" });
    expect(m!.run?.authorizedBy.type).toBe("ApprovalGranted");
  });

  it("records who asked, what was decided by which rule, and what came back", () => {
    const m = fold(syntheticCall({ callId: "c1", outcome: "succeeded", principal: "p1", runId: "r9" })).get("c1")!;
    expect(m).toMatchObject({ principal: "p1", correlationId: "r9", mode: "llm", tool: "kb.search", grade: "read", version: "1.0.0" });
    expect(m.decision).toMatchObject({ decision: "allow", ruleIds: ["default.read.llm"], policyVersion: "p1" });
    expect(m.result).toMatchObject({ ok: true, outputPreview: { hits: ["result of c1"] }, attempt: 1 });
    expect(m.argsPreview).toBe('{"query":"q-c1"}');
  });
});

describe("integrity violations", () => {
  it.each(CALL_VIOLATION_KINDS)("records %s from a crafted stream", (kind) => {
    const events = CRAFTED_VIOLATIONS[kind]("c1", "run1");
    const m = fold(events).get("c1")!;
    expect(m.violations.map((v) => v.kind)).toContain(kind);
    const v = m.violations.find((x) => x.kind === kind)!;
    expect(v.detail.length).toBeGreaterThan(0);
    expect(events.some((e) => e.eventId === v.eventId)).toBe(true);
  });

  it("records nothing for a model's send a person granted (it waits for one: default.send.llm), and flags one the policy allowed", () => {
    const granted = fold(syntheticCall({ callId: "c1", outcome: "approved", tool: "customer.message", mode: "llm" })).get("c1")!;
    expect(granted).toMatchObject({ mode: "llm", grade: "send", violations: [] });
    const allowed = fold(CRAFTED_VIOLATIONS.llm_send_allowed("c2", "run1")).get("c2")!;
    expect(allowed.violations.map((v) => v.kind)).toEqual(["llm_send_allowed", "send_without_grant"]);
  });

  it("keeps the first result when a second one arrives, and names the second", () => {
    const m = fold(CRAFTED_VIOLATIONS.finished_twice("c1", "run1")).get("c1")!;
    expect(m.status).toBe("succeeded");
    expect(m.outcomeUnknown).toBeUndefined();
    expect(m.violations).toEqual([expect.objectContaining({ kind: "finished_twice", type: "ToolCallOutcomeUnknown" })]);
  });

  it("flags a result written twice under another domain as a second result and an identity mismatch", () => {
    const events = syntheticCall({ callId: "c1", outcome: "succeeded" });
    const finished = events.at(-1)!;
    const m = fold([...events, { ...finished, domain: "zzz", eventId: "x" }]).get("c1")!;
    expect(m.violations.map((v) => v.kind).sort()).toEqual(["finished_twice", "identity_mismatch"]);
  });

  it("shows a call that ran without authorisation as running, then with its result", () => {
    const m = fold(CRAFTED_VIOLATIONS.started_without_authorisation("c1", "run1")).get("c1")!;
    expect(m.status).toBe("succeeded");
    expect(m.violations.map((v) => v.kind)).toEqual(["started_without_authorisation"]);
  });

  it("does not approve a call on a grant for another approval", () => {
    const events = syntheticCall({ callId: "c1", outcome: "approved", tool: "customer.message" }).map((e) =>
      e.type === "ApprovalGranted" ? { ...e, data: { ...e.data, approvalId: "other" } } : e,
    );
    const upToGrant = events.slice(0, events.findIndex((e) => e.type === "ApprovalGranted") + 1);
    const m = fold(upToGrant).get("c1")!;
    expect(m.status).toBe("awaiting_approval");
    expect(m.violations.map((v) => v.kind)).toEqual(["grant_without_request"]);
  });

  it("ends a call at the registry's refusal when its request is unreadable, and flags any other stage's refusal without a request", () => {
    const rejected = syntheticCall({ callId: "c1", outcome: "rejected" }).find((e) => e.type === "ToolCallRejected")!;
    expect(rejected).toMatchObject({ data: { stage: "registry" } });
    expect(fold([rejected]).get("c1")).toMatchObject({ status: "rejected", violations: [], rejection: { stage: "registry" } });
    const byPolicy = { ...rejected, data: { ...rejected.data, stage: "policy" as const } } as WardenEvent;
    expect(fold([byPolicy]).get("c1")!.violations.map((v) => v.kind)).toEqual(["invalid_transition"]);
  });

  it("accepts a subagent's view of each turn while the call runs", () => {
    const events = syntheticCall({ callId: "c1", outcome: "succeeded" });
    const started = events.findIndex((e) => e.type === "ToolCallStarted");
    const view = (turn: number): WardenEvent => ({
      ...events[started]!,
      type: "ToolViewCompiled",
      eventId: `v${turn}`,
      principal: "sub-agent",
      data: { turn, viewPrincipal: "sub-agent", viewMode: "llm", policyVersion: "p1", tools: [], hidden: [] },
    });
    const m = fold([...events.slice(0, started + 1), view(1), view(2), ...events.slice(started + 1)]).get("c1")!;
    expect(m).toMatchObject({ status: "succeeded", viewTurns: 2, violations: [] });
  });
});

describe("child calls", () => {
  it("lists a child on its parent's model once", () => {
    const parent = fold(syntheticCall({ callId: "p1", outcome: "succeeded" })).get("p1")!;
    const child = syntheticCall({ callId: "k1", outcome: "succeeded", parentCallId: "p1" })[0]!;
    const linked = linkChildCall(linkChildCall(parent, child, 100), child, 101)!;
    expect(linked.children).toEqual(["k1"]);
    expect(linked.seq).toBe(101);
    expect(linkChildCall(undefined, child, 5)).toBeUndefined();
  });
});
