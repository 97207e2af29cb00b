import { describe, expect, it } from "vitest";
import { buildTrace } from "@warden/projections";
import { syntheticCall } from "@warden/testing";
import { stepDetails, traceText } from "./trace-format.js";

const entries = (events: ReturnType<typeof syntheticCall>) => events.map((event, i) => ({ seq: i + 1, event }));

describe("trace text", () => {
  it("prints a header, then one line per event with the time since the last, who did it and what matters", () => {
    const t = buildTrace(entries(syntheticCall({ callId: "c1", outcome: "approved", tool: "customer.message" })))!;
    const lines = traceText(t).split("\n");
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
    const lines = traceText(buildTrace(entries(events))!).split("\n");
    expect(lines[2]).toMatch(/ToolCallRequested +bot +args=\{"query":"q-c1"\} goal="close T-7" why="refund sent"$/);
    expect(lines[6]).toMatch(/ApprovalGranted +alice +editedArgs=\{"query":"edited"\} approval=c1-a/);
  });

  it("indents child calls under their parent and lists violations", () => {
    const child = buildTrace(entries(syntheticCall({ callId: "k1", outcome: "failed", parentCallId: "p1" })))!;
    const parent = buildTrace(entries(syntheticCall({ callId: "p1", outcome: "crashed" }).filter((e) => e.type !== "ToolCallStarted")), [child])!;
    const text = traceText(parent);
    expect(text).toContain("  VIOLATION finished_without_start at ToolCallOutcomeUnknown (seq 4): ToolCallOutcomeUnknown without a ToolCallStarted");
    expect(text).toContain("  child calls (1):\n    call k1 kb.search (domain kb): failed after");
    expect(text).toMatch(/\n {6}by bot in llm mode, run run1, child of p1\n/);
  });

  it("shows a rejection's error and rules", () => {
    const t = buildTrace(entries(syntheticCall({ callId: "c1", outcome: "policy_denied" })))!;
    expect(stepDetails(t.steps.at(-1)!)).toBe('rules=gate.scope error="POLICY_DENIED: denied"');
  });
});
