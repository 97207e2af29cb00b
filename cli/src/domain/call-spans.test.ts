import { describe, expect, it } from "vitest";
import type { EventType, WardenEvent } from "@warden/contracts/events";
import type { SpanRecord } from "@warden/service-kit";
import { syntheticCall, type SyntheticCallOptions } from "@warden/testing";
import { rebuildCallSpans, type RecordedCall } from "./call-spans.js";

const T0 = Date.parse("2030-01-01T00:00:00.000Z");
const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const AGENT = "00f067aa0ba902b7";
const tp = (spanId: string, traceId = TRACE) => `00-${traceId}-${spanId}-01`;

function call(o: SyntheticCallOptions, spans: Partial<Record<EventType, string>> = {}): RecordedCall {
  const events = syntheticCall(o).map((e): WardenEvent => (spans[e.type] === undefined ? e : { ...e, traceparent: tp(spans[e.type]!) }));
  return { callId: o.callId, events };
}

function named(spans: readonly SpanRecord[], callId: string): Map<string, SpanRecord> {
  return new Map(spans.filter((s) => s.attributes["warden.call_id"] === callId).map((s) => [s.name, s]));
}

describe("rebuilding a call's spans from its events", () => {
  it("makes the spans the live services make for a call no process traced: registry → policy → executor stage → the tool's run, one trace", () => {
    const spans = rebuildCallSpans([call({ callId: "c1", outcome: "succeeded" })]);
    expect(spans.map((s) => s.name)).toEqual(["stage registry-validate", "stage policy-check", "stage executor-allowed-kb", "tool kb.search"]);
    const [registry, policy, executor, tool] = spans as [SpanRecord, SpanRecord, SpanRecord, SpanRecord];
    expect(registry.parentSpanId).toBeUndefined();
    expect(policy.parentSpanId).toBe(registry.spanId);
    expect(executor.parentSpanId).toBe(policy.spanId);
    expect(tool.parentSpanId).toBe(executor.spanId);
    expect(new Set(spans.map((s) => s.traceId)).size).toBe(1);
    for (const s of spans) {
      expect(s.traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(s.spanId).toMatch(/^[0-9a-f]{16}$/);
    }
    expect(new Set(spans.map((s) => s.spanId)).size).toBe(4);
    expect(spans.map((s) => s.service)).toEqual(["warden-registry", "warden-policy", "warden-executor", "warden-executor"]);

    // a stage's span runs from the event it handled to the last one it wrote (an event every 3 ms)
    expect([registry.startMs - T0, registry.endMs - T0]).toEqual([0, 3]);
    expect([policy.startMs - T0, policy.endMs - T0]).toEqual([3, 6]);
    expect([executor.startMs - T0, executor.endMs - T0]).toEqual([6, 12]);
    // the tool's run: its recorded duration (1.5 ms) back from its result
    expect([tool.startMs - T0, tool.endMs - T0]).toEqual([10.5, 12]);

    const call1 = { "warden.call_id": "c1", "warden.tool": "kb.search", "warden.domain": "kb", "warden.principal": "bot", "warden.mode": "llm", "warden.rebuilt": true };
    expect(registry.attributes).toEqual({ ...call1, "warden.stage": "registry-validate", "warden.event_type": "ToolCallRequested" });
    expect(policy.attributes).toEqual({ ...call1, "warden.stage": "policy-check", "warden.event_type": "ToolArgsValidated", "warden.grade": "read", "warden.decision": "allow", "warden.rule_ids": ["default.read.llm"] });
    expect(executor.attributes).toEqual({ ...call1, "warden.stage": "executor-allowed-kb", "warden.event_type": "ToolPolicyChecked", "warden.grade": "read", "warden.decision": "allow", "warden.rule_ids": ["default.read.llm"] });
    expect(tool.attributes).toEqual({ ...call1, "warden.event_type": "ToolCallStarted", "warden.attempt": 1, "warden.executor_id": "ex1", "warden.ok": true });
    expect(tool.error).toBeUndefined();
    expect(executor.events.map((e) => [e.name, e.attributes["warden.event_type"], e.attributes["warden.append_result"]])).toEqual([
      ["warden.append", "ToolCallStarted", "written"],
      ["warden.append", "ToolCallFinished", "written"],
    ]);
  });

  it("derives the same ids on every rebuild, and other ids for another call", () => {
    const once = rebuildCallSpans([call({ callId: "c1", outcome: "succeeded" })]);
    expect(rebuildCallSpans([call({ callId: "c1", outcome: "succeeded" })])).toEqual(once);
    const other = rebuildCallSpans([call({ callId: "c2", outcome: "succeeded" })]);
    expect(other[0]!.traceId).not.toBe(once[0]!.traceId);
    expect(other.map((s) => s.spanId).filter((id) => once.some((s) => s.spanId === id))).toEqual([]);
  });

  it("uses the span ids the events name, so the rebuilt trace is the live one, the agent's span its root", () => {
    const spans = rebuildCallSpans([
      call({ callId: "c1", outcome: "succeeded" }, { ToolCallRequested: AGENT, ToolArgsValidated: "1111111111111111", ToolPolicyChecked: "2222222222222222", ToolCallStarted: "3333333333333333", ToolCallFinished: "3333333333333333" }),
    ]);
    const [registry, policy, executor, tool] = spans as [SpanRecord, SpanRecord, SpanRecord, SpanRecord];
    expect([registry.spanId, policy.spanId, executor.spanId]).toEqual(["1111111111111111", "2222222222222222", "3333333333333333"]);
    expect(registry).toMatchObject({ parentSpanId: AGENT, remoteParent: true });
    expect(policy.parentSpanId).toBe(registry.spanId);
    expect(executor.parentSpanId).toBe(policy.spanId);
    // the tool's run names no event: its id is derived, in the same trace, under its stage
    expect(tool.parentSpanId).toBe(executor.spanId);
    for (const s of spans) expect(s.traceId).toBe(TRACE);
  });

  it("derives the span of a stage that did not trace, the context it passed on being the one before", () => {
    // the registry's process did not trace: its event carries the agent's context on unchanged
    const spans = rebuildCallSpans([call({ callId: "c1", outcome: "succeeded" }, { ToolCallRequested: AGENT, ToolArgsValidated: AGENT, ToolPolicyChecked: "2222222222222222" })]);
    const [registry, policy] = spans as [SpanRecord, SpanRecord];
    expect(registry.spanId).not.toBe(AGENT);
    expect(registry.parentSpanId).toBe(AGENT);
    expect(registry.traceId).toBe(TRACE);
    expect(policy).toMatchObject({ spanId: "2222222222222222", traceId: TRACE });
  });

  it("keeps a call that waited for a person in one trace: policy → approver stage → the granted executor stage, the wait in no span", () => {
    const untraced = named(rebuildCallSpans([call({ callId: "c3", outcome: "approved", tool: "customer.message" })]), "c3");
    expect([...untraced.keys()]).toEqual(["stage registry-validate", "stage policy-check", "stage approver-request", "stage executor-granted-customer", "tool customer.message"]);
    const approver = untraced.get("stage approver-request")!;
    const executor = untraced.get("stage executor-granted-customer")!;
    expect(approver.parentSpanId).toBe(untraced.get("stage policy-check")!.spanId);
    // the person's grant answers the request outside any stage: it carries the approver's context on
    expect(executor.parentSpanId).toBe(approver.spanId);
    expect(approver.events.map((e) => e.attributes["warden.event_type"])).toEqual(["ApprovalRequested"]);
    expect(approver.endMs - T0).toBe(9);
    expect(approver.service).toBe("warden-approver");
    expect(executor.attributes).toMatchObject({ "warden.event_type": "ApprovalGranted", "warden.stage": "executor-granted-customer" });
    expect(untraced.get("stage policy-check")!.attributes).toMatchObject({ "warden.grade": "send", "warden.decision": "require_approval" });

    // traced: the grant names the approver's span (it carried it on), the executor its own
    const traced = named(
      rebuildCallSpans([
        call(
          { callId: "c3", outcome: "approved", tool: "customer.message" },
          { ToolArgsValidated: "1111111111111111", ToolPolicyChecked: "2222222222222222", ApprovalRequested: "4444444444444444", ApprovalGranted: "4444444444444444", ToolCallStarted: "5555555555555555", ToolCallFinished: "5555555555555555" },
        ),
      ]),
      "c3",
    );
    expect(traced.get("stage approver-request")).toMatchObject({ spanId: "4444444444444444", parentSpanId: "2222222222222222" });
    expect(traced.get("stage approver-request")!.endMs - T0).toBe(9);
    expect(traced.get("stage executor-granted-customer")).toMatchObject({ spanId: "5555555555555555", parentSpanId: "4444444444444444" });
  });

  it("rebuilds the spans a call waiting for a person has so far", () => {
    const waiting = call({ callId: "c4", outcome: "approved", tool: "customer.message" });
    const sofar = { ...waiting, events: waiting.events.slice(0, waiting.events.findIndex((e) => e.type === "ApprovalRequested") + 1) };
    expect(rebuildCallSpans([sofar]).map((s) => s.name)).toEqual(["stage registry-validate", "stage policy-check", "stage approver-request"]);
  });

  it("puts a session grant in the approver's span, which wrote it", () => {
    const granted = call({ callId: "c5", outcome: "approved", tool: "customer.message" });
    const events = granted.events.map((e): WardenEvent => (e.type === "ApprovalGranted" ? { ...e, data: { ...e.data, bySession: { grantId: "c0", approvalId: "c0-a" } } } : e));
    const approver = named(rebuildCallSpans([{ ...granted, events }]), "c5").get("stage approver-request")!;
    expect(approver.events.map((e) => e.attributes["warden.event_type"])).toEqual(["ApprovalRequested", "ApprovalGranted"]);
  });

  it("says what a denying policy stage decided and wrote, and makes no executor span", () => {
    const spans = rebuildCallSpans([call({ callId: "c6", outcome: "policy_denied" })]);
    expect(spans.map((s) => s.name)).toEqual(["stage registry-validate", "stage policy-check"]);
    expect(spans[1]!.attributes).toMatchObject({ "warden.decision": "deny", "warden.rule_ids": ["gate.scope"] });
    expect(spans[1]!.events.map((e) => e.attributes["warden.event_type"])).toEqual(["ToolPolicyChecked", "ToolCallRejected"]);
  });

  it("marks a failed run as an error with its code, and a registry refusal as the registry's span", () => {
    const failed = named(rebuildCallSpans([call({ callId: "c7", outcome: "failed" })]), "c7").get("tool kb.search")!;
    expect(failed).toMatchObject({ error: "HANDLER_ERROR", attributes: { "warden.ok": false, "warden.error_code": "HANDLER_ERROR" } });
    const rejected = rebuildCallSpans([call({ callId: "c8", outcome: "rejected" })]);
    expect(rejected.map((s) => [s.name, s.events.map((e) => e.attributes["warden.event_type"])])).toEqual([["stage registry-validate", ["ToolCallRejected"]]]);
  });

  it("makes a redelivery that wrote in a span of its own its own span, under the same parent", () => {
    const spans = rebuildCallSpans([call({ callId: "c9", outcome: "crashed" }, { ToolPolicyChecked: "2222222222222222", ToolCallStarted: "3333333333333333", ToolCallOutcomeUnknown: "6666666666666666" })]);
    const executors = spans.filter((s) => s.name === "stage executor-allowed-kb");
    expect(executors.map((s) => [s.spanId, s.parentSpanId])).toEqual([
      ["3333333333333333", "2222222222222222"],
      ["6666666666666666", "2222222222222222"],
    ]);
    expect(spans.some((s) => s.name.startsWith("tool "))).toBe(false);
  });

  it("nests a subagent's child call under the run of its parent, in the parent's trace", () => {
    // the parent's run: ToolCallStarted at 9 ms, its result at 12 ms after 1.5 ms; the child is asked at 11 ms
    const parent = call({ callId: "p1", outcome: "succeeded", tool: "agent.triage" });
    const child = call({ callId: "k1", outcome: "succeeded", parentCallId: "p1", at: new Date(T0 + 11) });
    const spans = rebuildCallSpans([parent, child]);
    const run = named(spans, "p1").get("tool agent.triage")!;
    expect(run.service).toBe("warden-subagent");
    const childRegistry = named(spans, "k1").get("stage registry-validate")!;
    expect(childRegistry.parentSpanId).toBe(run.spanId);
    expect(new Set(spans.map((s) => s.traceId)).size).toBe(1);

    // traced: the child's request names the run's span, which is then the run's id
    const tracedParent = call({ callId: "p1", outcome: "succeeded", tool: "agent.triage" }, { ToolCallRequested: AGENT, ToolArgsValidated: "1111111111111111", ToolPolicyChecked: "2222222222222222", ToolCallStarted: "3333333333333333", ToolCallFinished: "3333333333333333" });
    const tracedChild = call({ callId: "k1", outcome: "succeeded", parentCallId: "p1", at: new Date(T0 + 11) }, { ToolCallRequested: "7777777777777777", ToolArgsValidated: "8888888888888888" });
    const traced = rebuildCallSpans([tracedParent, tracedChild]);
    expect(named(traced, "p1").get("tool agent.triage")).toMatchObject({ spanId: "7777777777777777", parentSpanId: "3333333333333333", traceId: TRACE });
    expect(named(traced, "k1").get("stage registry-validate")).toMatchObject({ spanId: "8888888888888888", parentSpanId: "7777777777777777", traceId: TRACE });
    // the child's untraced stages join the same trace
    expect(named(traced, "k1").get("stage policy-check")).toMatchObject({ parentSpanId: "8888888888888888", traceId: TRACE });
  });

  it("ends every walk over a crafted history whose calls name each other as parents", () => {
    const a = call({ callId: "a1", outcome: "succeeded", parentCallId: "b1", tool: "agent.a" });
    const b = call({ callId: "b1", outcome: "succeeded", parentCallId: "a1", tool: "agent.b" });
    const spans = rebuildCallSpans([a, b]);
    expect(spans).toHaveLength(8);
  });
});
