import { describe, expect, it } from "vitest";
import type { ToolCallStarted } from "@warden/contracts/events";
import { claimDeadlineMs, decideRecovery } from "./decide-recovery.js";

const started: ToolCallStarted = {
  v: 1,
  type: "ToolCallStarted",
  eventId: "ev1",
  callId: "c1",
  domain: "kb",
  tool: "kb.search",
  principal: "alice",
  mode: "human",
  ts: "2030-01-01T00:00:00.000Z",
  causationId: "pc1",
  causeHash: `sha256:${"c".repeat(64)}`,
  correlationId: "run1",
  data: {
    executorId: "kb-1",
    version: "1.0.0",
    descriptorHash: `sha256:${"a".repeat(64)}`,
    argsHash: `sha256:${"b".repeat(64)}`,
    authorizedBy: { type: "ToolPolicyChecked", eventId: "pc1" },
    deadline: "2030-01-01T00:00:10.000Z",
  },
};
const deadlineMs = Date.parse(started.data.deadline);
const base = { started, hasResult: false, graceMs: 1_000, canRerun: true, deliveryCount: 3, claimantRunsHere: false, busSteadyForMs: Infinity, catchUpMs: 5_000 };

describe("decideRecovery", () => {
  it("does nothing more when a result is already recorded", () => {
    expect(decideRecovery({ ...base, hasResult: true, nowMs: deadlineMs + 60_000 })).toEqual({ kind: "done" });
  });

  it("waits while the claimant may still be running, until the deadline plus the grace", () => {
    expect(decideRecovery({ ...base, nowMs: deadlineMs })).toEqual({ kind: "wait", untilMs: deadlineMs + 1_000 });
  });

  it("re-runs an idempotent tool after the deadline, as attempt = delivery count", () => {
    expect(decideRecovery({ ...base, nowMs: deadlineMs + 1_000 })).toEqual({ kind: "rerun", attempt: 3 });
  });

  it("numbers a re-run at least 2 even on a first delivery", () => {
    expect(decideRecovery({ ...base, deliveryCount: 1, nowMs: deadlineMs + 5_000 })).toEqual({ kind: "rerun", attempt: 2 });
  });

  it("declares the outcome unknown for a tool that may not run twice, naming the claimant", () => {
    const r = decideRecovery({ ...base, canRerun: false, nowMs: deadlineMs + 5_000 });
    expect(r.kind).toBe("unknown");
    if (r.kind === "unknown") expect(r.reason).toContain("kb-1");
  });

  it("keeps waiting past the deadline while the claim's run is this process's own and still going (a result held up by an outage)", () => {
    const now = deadlineMs + 30_000;
    expect(decideRecovery({ ...base, canRerun: false, claimantRunsHere: true, nowMs: now })).toEqual({ kind: "wait", untilMs: now + 1_000 });
    expect(decideRecovery({ ...base, canRerun: true, claimantRunsHere: true, nowMs: now })).toEqual({ kind: "wait", untilMs: now + 1_000 });
  });
});

describe("a claim past its deadline after an outage", () => {
  it("is not given up until the bus has worked for the catch-up time: the claimant was cut off too", () => {
    const now = deadlineMs + 30_000;
    expect(decideRecovery({ ...base, canRerun: false, busSteadyForMs: 1_200, nowMs: now })).toEqual({ kind: "wait", untilMs: now + 3_800 });
    expect(decideRecovery({ ...base, canRerun: true, busSteadyForMs: 0, nowMs: now })).toEqual({ kind: "wait", untilMs: now + 5_000 });
  });

  it("is given up once the bus has been steady that long", () => {
    expect(decideRecovery({ ...base, canRerun: false, busSteadyForMs: 5_000, nowMs: deadlineMs + 30_000 }).kind).toBe("unknown");
    expect(decideRecovery({ ...base, canRerun: true, busSteadyForMs: 5_000, nowMs: deadlineMs + 30_000 })).toEqual({ kind: "rerun", attempt: 3 });
  });

  it("changes nothing before the deadline", () => {
    expect(decideRecovery({ ...base, busSteadyForMs: 0, nowMs: deadlineMs })).toEqual({ kind: "wait", untilMs: deadlineMs + 1_000 });
  });
});

describe("a claim's deadline on the server's clock", () => {
  // the claimant's clock ran 5 minutes ahead: it wrote ts and deadline 5 minutes late
  const ahead: ToolCallStarted = { ...started, ts: "2030-01-01T00:05:00.000Z", data: { ...started.data, deadline: "2030-01-01T00:05:10.000Z" } };
  const storedAtMs = Date.parse("2030-01-01T00:00:00.000Z");

  it("counts the time the claimant gave itself from when the server stored the claim", () => {
    expect(claimDeadlineMs(ahead, storedAtMs)).toBe(storedAtMs + 10_000);
    expect(claimDeadlineMs(ahead, undefined)).toBe(Date.parse("2030-01-01T00:05:10.000Z"));
  });

  it("takes over a dead claimant with a fast clock at its real deadline, not minutes later", () => {
    const f = { ...base, started: ahead, nowMs: storedAtMs + 12_000 };
    expect(decideRecovery({ ...f, claimStoredAtMs: storedAtMs })).toEqual({ kind: "rerun", attempt: 3 });
    // by the deadline as written, it would wait out the claimant's skew
    expect(decideRecovery(f).kind).toBe("wait");
  });
});
