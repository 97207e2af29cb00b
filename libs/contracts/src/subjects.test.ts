import { describe, expect, it } from "vitest";
import {
  approverDeliverSubject,
  callEventSubject,
  callReadSubject,
  cancelSubject,
  decideSubject,
  outcomeSubject,
  parseApproverDeliverSubject,
  parseCallReadSubject,
  parseCallSubject,
  parseCancelSubject,
  parseDecideSubject,
  parseLedgerKey,
  stageFilterSubject,
  subjectOfEvent,
  UnsafeTokenError,
} from "./subjects.js";

describe("subjects", () => {
  it("builds and parses an event subject, with the principal on a request", () => {
    expect(callEventSubject("kb", "c1", "ToolArgsValidated")).toBe("warden.call.kb.c1.ToolArgsValidated");
    const req = callEventSubject("kb", "c1", "ToolCallRequested", "alice");
    expect(req).toBe("warden.call.kb.c1.ToolCallRequested.alice");
    expect(parseCallSubject(req)).toEqual({ domain: "kb", callId: "c1", types: ["ToolCallRequested"], principal: "alice" });
    expect(parseCallSubject("warden.call.kb.c1.ToolArgsValidated")).toEqual({ domain: "kb", callId: "c1", types: ["ToolArgsValidated"] });
  });

  it("refuses tokens with dots, wildcards or spaces before they become subjects", () => {
    for (const bad of ["a.b", "*", ">", "a b", "", "x>"]) {
      expect(() => callEventSubject(bad, "c1", "ToolCallFinished")).toThrow(UnsafeTokenError);
      expect(() => callEventSubject("kb", "c1", "ToolCallRequested", bad)).toThrow(UnsafeTokenError);
      expect(() => decideSubject(bad, "a1")).toThrow(UnsafeTokenError);
    }
  });

  it("gives each turn's ToolViewCompiled its own subject", () => {
    const s = callEventSubject("agent", "c1", "ToolViewCompiled", "t2");
    expect(s).toBe("warden.call.agent.c1.ToolViewCompiled.t2");
    expect(parseCallSubject(s)).toEqual({ domain: "agent", callId: "c1", types: ["ToolViewCompiled"], turn: "t2" });
    expect(parseCallSubject("warden.call.agent.c1.ToolViewCompiled.x")).toBeUndefined();
    expect(() => callEventSubject("agent", "c1", "ToolViewCompiled")).toThrow();
  });

  it("keeps every executor outcome of a call on one subject, so the server stores only the first", () => {
    const slot = "warden.call.kb.c1.Outcome";
    expect(callEventSubject("kb", "c1", "ToolCallFinished")).toBe(slot);
    expect(callEventSubject("kb", "c1", "ToolCallOutcomeUnknown")).toBe(slot);
    expect(outcomeSubject("kb", "c1")).toBe(slot);
    expect(parseCallSubject(slot)).toEqual({ domain: "kb", callId: "c1", types: ["ToolCallFinished", "ToolCallOutcomeUnknown", "ToolCallRejected"] });
    // a stage's refusal keeps its own subject; the executor's refusal is an outcome
    expect(callEventSubject("kb", "c1", "ToolCallRejected")).toBe("warden.call.kb.c1.ToolCallRejected");
    const base = { v: 1, eventId: "e1", callId: "c1", domain: "kb", tool: "kb.get", principal: "p", mode: "plan", ts: new Date().toISOString(), causationId: "e0", causeHash: `sha256:${"0".repeat(64)}`, correlationId: "r" } as const;
    const error = { code: "GRANT_INVALID", message: "late", retryable: false } as const;
    expect(subjectOfEvent({ ...base, type: "ToolCallRejected", data: { stage: "executor", error } })).toBe(slot);
    expect(subjectOfEvent({ ...base, type: "ToolCallRejected", data: { stage: "policy", error } })).toBe("warden.call.kb.c1.ToolCallRejected");
    expect(parseCallSubject("warden.call.kb.c1.ToolCallFinished")).toBeUndefined();
    expect(parseCallSubject("warden.call.kb.c1.Outcome.x")).toBeUndefined();
  });

  it("parses nothing it did not build", () => {
    expect(parseCallSubject("warden.call.kb.c1.NotAnEvent")).toBeUndefined();
    expect(parseCallSubject("warden.call.kb.c1.ToolCallRequested")).toBeUndefined();
    expect(parseCallSubject("warden.call.kb.c1.ToolCallFinished.extra")).toBeUndefined();
    expect(parseCallSubject("other.call.kb.c1.ToolCallFinished")).toBeUndefined();
    expect(parseDecideSubject("warden.decide.alice.a1")).toEqual({ approver: "alice", approvalId: "a1" });
    expect(parseDecideSubject("warden.decide.alice")).toBeUndefined();
  });

  it("reads back the tokens of a subject or key it built, and nothing longer, shorter, elsewhere or unsafe", () => {
    expect(parseCancelSubject(cancelSubject("alice", "c1"))).toEqual({ principal: "alice", callId: "c1" });
    expect(parseApproverDeliverSubject(approverDeliverSubject("alice", "phone"))).toEqual({ approver: "alice", durable: "phone" });
    expect(parseCallReadSubject(callReadSubject("alice", "kb", "c1"))).toEqual({ principal: "alice", domain: "kb", callId: "c1" });
    expect(parseLedgerKey("ledger.refunds.alice")).toEqual({ ledger: "refunds", holder: "alice" });
    for (const subject of ["warden.cancel.alice.c1.x", "warden.cancel.alice", "warden.cancel..c1", "warden.decide.alice.c1", "warden.cancel.alice.c*"]) {
      expect(parseCancelSubject(subject), subject).toBeUndefined();
    }
    expect(parseCallReadSubject("warden.calls.alice.kb")).toBeUndefined();
    expect(parseApproverDeliverSubject("warden.approver.notify.alice.phone")).toBeUndefined();
    expect(parseLedgerKey("ledgers.refunds.alice")).toBeUndefined();
  });

  it("filters one event type, optionally one domain", () => {
    expect(stageFilterSubject("ToolCallRequested")).toBe("warden.call.*.*.ToolCallRequested.*");
    expect(stageFilterSubject("ToolPolicyChecked", "kb")).toBe("warden.call.kb.*.ToolPolicyChecked");
  });
});
