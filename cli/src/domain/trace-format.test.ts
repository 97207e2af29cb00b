import { describe, expect, it } from "vitest";
import { buildTrace } from "@warden/projections";
import { syntheticCall } from "@warden/testing";
import { stepDetails, traceText } from "./trace-format.js";

const entries = (events: ReturnType<typeof syntheticCall>) => events.map((event, i) => ({ seq: i + 1, event }));

describe("trace text, --wide", () => {
  it("prints a header, then one line per event with the time since the last, who did it and what matters", () => {
    const t = buildTrace(entries(syntheticCall({ callId: "c1", outcome: "approved", tool: "customer.message" })))!;
    const lines = traceText(t, { wide: true }).split("\n");
    expect(lines[0]).toBe("call c1 customer.message (domain customer): succeeded after 18ms, 7 events");
    expect(lines[1]).toBe("  by bot in plan mode, run run1");
    expect(lines[2]).toMatch(/^ {7}\+0ms {2}2030-01-01T00:00:00.000Z {2}ToolCallRequested +bot +args=\{"query":"q-c1"\}$/);
    expect(lines[4]).toContain("ToolPolicyChecked  policy    decision=require_approval rules=default.send.plan policy=p1");
    expect(lines[6]).toMatch(/ApprovalGranted +alice +approval=c1-a approver=alice argsHash=sha256:/);
    expect(lines[8]).toMatch(/\+3ms .*ToolCallFinished +ex1 +ok=true ran=1.5ms result=\{"hits":\["result of c1"\]\}$/);
  });

  it("shows the request's intent and the args an edited grant ran", () => {
    const events = syntheticCall({ callId: "c1", outcome: "approved", tool: "customer.message" }).map((e) => {
      if (e.type === "ToolCallRequested") return { ...e, data: { ...e.data, intent: { goal: "close T-7", rationale: "refund sent" } } };
      if (e.type === "ApprovalGranted") return { ...e, data: { ...e.data, edit: { args: { query: "edited" }, originalArgsHash: e.data.argsHash } } };
      return e;
    });
    const lines = traceText(buildTrace(entries(events))!, { wide: true }).split("\n");
    expect(lines[2]).toMatch(/ToolCallRequested +bot +args=\{"query":"q-c1"\} goal="close T-7" why="refund sent"$/);
    expect(lines[6]).toMatch(/ApprovalGranted +alice +editedArgs=\{"query":"edited"\} approval=c1-a/);
  });

  it("indents child calls under their parent and lists violations", () => {
    const child = buildTrace(entries(syntheticCall({ callId: "k1", outcome: "failed", parentCallId: "p1" })))!;
    const parent = buildTrace(entries(syntheticCall({ callId: "p1", outcome: "crashed" }).filter((e) => e.type !== "ToolCallStarted")), [child])!;
    const text = traceText(parent, { wide: true });
    expect(text).toContain("  VIOLATION finished_without_start at ToolCallOutcomeUnknown (seq 4): ToolCallOutcomeUnknown without a ToolCallStarted");
    expect(text).toContain("  child calls (1):\n    call k1 kb.search (domain kb): failed after");
    expect(text).toMatch(/\n {6}by bot in llm mode, run run1, child of p1\n/);
  });

  it("shows a rejection's error and rules", () => {
    const t = buildTrace(entries(syntheticCall({ callId: "c1", outcome: "policy_denied" })))!;
    expect(stepDetails(t.steps.at(-1)!)).toBe('rules=gate.scope error="POLICY_DENIED: denied"');
  });
});

describe("trace text, the default", () => {
  const long = (events: ReturnType<typeof syntheticCall>) =>
    events.map((e) => (e.type === "ToolCallRequested" ? { ...e, data: { ...e.data, args: { text: "x".repeat(400) }, intent: { goal: "a goal of many words ".repeat(8) } } } : e));

  it("keeps every line within 100 columns, hashes shortened, even for long args, goals and child calls", () => {
    const child = buildTrace(entries(long(syntheticCall({ callId: "k1", outcome: "approved", parentCallId: "p1", tool: "customer.message" }))))!;
    const grandchild = buildTrace(entries(long(syntheticCall({ callId: "k2", outcome: "succeeded", parentCallId: "k1" }))))!;
    const mid = { ...child, children: [grandchild] };
    const parent = buildTrace(entries(long(syntheticCall({ callId: "p1", outcome: "approved", tool: "customer.message" }))), [mid])!;
    const text = traceText(parent);
    for (const line of text.split("\n")) expect(line.length, line).toBeLessThanOrEqual(100);
    expect(text).not.toMatch(/[0-9a-f]{64}/);
    expect(text).toMatch(/argsHash=sha256:[0-9a-f]{8}…/);
    expect(text).toContain("    call k1 customer.message (domain customer): succeeded");
    expect(text).toContain("        call k2 kb.search (domain kb): succeeded");
    // the wide form is what it was: one line per event, full hashes
    expect(traceText(parent, { wide: true })).toMatch(/argsHash=sha256:[0-9a-f]{64}/);
  });

  it("prints the call's start once and each event's time since the one before", () => {
    const lines = traceText(buildTrace(entries(syntheticCall({ callId: "c1", outcome: "approved", tool: "customer.message" })))!).split("\n");
    expect(lines[1]).toBe("  by bot in plan mode, run run1, from 2030-01-01T00:00:00.000Z");
    expect(lines[2]).toMatch(/^ {5}\+0ms {2}ToolCallRequested {2}bot +args=\{"query":"q-c1"\}$/);
    expect(lines.find((l) => l.includes("ApprovalGranted"))).toMatch(/ApprovalGranted +alice +approval=c1-a approver=alice argsHash=sha256:[0-9a-f]{8}…$/);
  });
});
