import { describe, expect, it } from "vitest";
import { syntheticCall } from "@warden/testing";
import { stepPairs } from "./trace-pairs.js";
import { buildTrace } from "./trace.js";

const entries = (events: ReturnType<typeof syntheticCall>, from = 1) => events.map((event, i) => ({ seq: from + i, event }));

describe("buildTrace", () => {
  it("lists a call's steps in order with who did each and the time between them", () => {
    const trace = buildTrace(entries(syntheticCall({ callId: "c1", outcome: "approved", tool: "customer.message" })))!;
    expect(trace.steps.map((s) => [s.type, s.actor])).toEqual([
      ["ToolCallRequested", "bot"],
      ["ToolArgsValidated", "registry"],
      ["ToolPolicyChecked", "policy"],
      ["ApprovalRequested", "approver"],
      ["ApprovalGranted", "alice"],
      ["ToolCallStarted", "ex1"],
      ["ToolCallFinished", "ex1"],
    ]);
    expect(trace.steps.map((s) => s.sincePrevMs)).toEqual([0, 3, 3, 3, 3, 3, 3]);
    expect(trace.steps.at(-1)!.sinceStartMs).toBe(18);
    expect(trace).toMatchObject({ status: "succeeded", totalMs: 18, violations: [] });
  });

  it("shows the decision and its rules, the argsHash, the approver, the result preview and artifacts", () => {
    const events = syntheticCall({ callId: "c1", outcome: "approved", tool: "customer.message" }).map((e) =>
      e.type === "ToolCallFinished"
        ? { ...e, data: { ...e.data, truncated: true, artifacts: [{ id: "c1.output.json", sha256: "a".repeat(64), bytes: 99_000, contentType: "application/json" }] } }
        : e,
    );
    const steps = buildTrace(entries(events))!.steps;
    expect(steps[2]).toMatchObject({ decision: "require_approval", ruleIds: ["default.send.plan"], policyVersion: "p1" });
    expect(steps[4]).toMatchObject({ approver: "alice", approvalId: "c1-a", argsHash: steps[1]!.argsHash });
    expect(steps[6]).toMatchObject({ ok: true, resultPreview: '{"hits":["result of c1"]}', artifacts: [{ id: "c1.output.json", bytes: 99_000 }] });
  });

  it("shows what the run reported it read, wrote and called, as a step's pairs", () => {
    const effectsObserved = { reads: ["invoices/INV-1"], writes: ["refunds/INV-1"], external: ["POST https://pay.example/v1/refunds"], dropped: 2 };
    const events = syntheticCall({ callId: "c1", outcome: "approved", tool: "customer.message" }).map((e) =>
      e.type === "ToolCallFinished" ? { ...e, data: { ...e.data, effectsObserved } } : e,
    );
    const steps = buildTrace(entries(events))!.steps;
    expect(steps[6]).toMatchObject({ effects: effectsObserved });
    expect(stepPairs(steps[6]!)).toEqual(
      expect.arrayContaining(["read=invoices/INV-1", "wrote=refunds/INV-1", 'called="POST https://pay.example/v1/refunds"', "effectsDropped=2"]),
    );
    expect(stepPairs(steps[5]!).some((p) => p.startsWith("called="))).toBe(false);
  });

  it("says how much personal data of each kind the executor masked in a result", () => {
    const events = syntheticCall({ callId: "c1", outcome: "approved", tool: "customer.message" }).map((e) =>
      e.type === "ToolCallFinished" ? { ...e, data: { ...e.data, personalDataRedacted: { email: 2, iban: 1 } } } : e,
    );
    const steps = buildTrace(entries(events))!.steps;
    expect(stepPairs(steps[6]!)).toContain('masked="2 email, 1 iban"');
    expect(stepPairs(steps[5]!).some((p) => p.startsWith("masked="))).toBe(false);
  });

  it("names whom a delegated call ran for and whose credentials its run used, never a value", () => {
    const credentials = [
      { secret: "crm_token", bind: "principal" as const, principal: "alice" },
      { secret: "stats_key", bind: "executor" as const },
    ];
    const events = syntheticCall({ callId: "c1", outcome: "succeeded", parentCallId: "p1" }).map((e) => {
      if (e.type === "ToolCallFinished") return { ...e, data: { ...e.data, credentials } };
      if (e.type === "ToolPolicyChecked") return { ...e, data: { ...e.data, onBehalfOf: "alice" } };
      return e;
    });
    const steps = buildTrace(entries(events))!.steps;
    const decided = steps.find((s) => s.type === "ToolPolicyChecked")!;
    const finished = steps.find((s) => s.type === "ToolCallFinished")!;
    expect(stepPairs(decided)).toContain("for=alice");
    expect(finished).toMatchObject({ credentials: ["crm_token:alice", "stats_key:executor"] });
    expect(stepPairs(finished)).toContain("credentials=crm_token:alice,stats_key:executor");
  });

  it("carries the traces of child calls and the call's violations", () => {
    const child = buildTrace(entries(syntheticCall({ callId: "k1", outcome: "failed", parentCallId: "p1" }), 10))!;
    const parent = buildTrace(entries(syntheticCall({ callId: "p1", outcome: "succeeded" }).filter((e) => e.type !== "ToolCallStarted")), [child])!;
    expect(parent.children.map((c) => [c.callId, c.status, c.parentCallId])).toEqual([["k1", "failed", "p1"]]);
    expect(parent.violations.map((v) => v.kind)).toEqual(["finished_without_start"]);
  });

  it("has no trace without events", () => {
    expect(buildTrace([])).toBeUndefined();
  });
});
