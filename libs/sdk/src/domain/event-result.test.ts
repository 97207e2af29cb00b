import { describe, expect, it } from "vitest";
import type { WardenEvent } from "@warden/contracts/events";
import { decidersOfRequest, pendingResult, resultFromEvent } from "./event-result.js";

const envelope = {
  v: 1 as const,
  eventId: "ev2",
  callId: "call1",
  domain: "kb",
  tool: "kb.search",
  principal: "bot",
  mode: "llm" as const,
  ts: "2025-01-01T00:00:00.000Z",
  causationId: "ev1",
  causeHash: `sha256:${"c".repeat(64)}`,
  correlationId: "run1",
};
const HASH = `sha256:${"a".repeat(64)}`;
const artifact = { id: "call1.output.json", sha256: "b".repeat(64), bytes: 1_000_000, contentType: "application/json" };

function finished(ok: boolean, extra: object = {}): WardenEvent {
  return {
    ...envelope,
    type: "ToolCallFinished",
    data: { ok, truncated: false, outputBytes: 2, artifacts: [], durationMs: 1, executorId: "ex1", attempt: 1, ...extra },
  };
}

const approvalRequested: WardenEvent = {
  ...envelope,
  type: "ApprovalRequested",
  data: {
    version: "1.0.0",
    descriptorHash: HASH,
    grade: "send",
    argsHash: HASH,
    approvalId: "ap1",
    argsPreview: "{}",
    args: {},
    title: "Message a customer",
    expiresAt: "2025-01-01T00:15:00.000Z",
    approvers: { human: true, requesterMayConfirm: false },
    reason: "send needs a human",
    ruleIds: ["default.send.plan"],
    policyVersion: "p1",
  },
};

describe("resultFromEvent", () => {
  it("turns a successful finish into succeeded with its data, artifacts and truncation", () => {
    expect(resultFromEvent(finished(true, { output: { hits: 2 } }), false)).toEqual({
      callId: "call1",
      ok: true,
      status: "succeeded",
      data: { hits: 2 },
    });
    expect(resultFromEvent(finished(true, { output: ["x"], truncated: true, artifacts: [artifact] }), false)).toEqual({
      callId: "call1",
      ok: true,
      status: "succeeded",
      data: ["x"],
      truncated: true,
      artifacts: [artifact],
    });
  });

  it("turns a failed finish into failed with the tool's error", () => {
    const error = { code: "HANDLER_ERROR" as const, message: "boom", retryable: true };
    expect(resultFromEvent(finished(false, { error }), false)).toEqual({ callId: "call1", ok: false, status: "failed", error });
  });

  it("turns a rejection into rejected with its error", () => {
    const error = { code: "UNKNOWN_TOOL" as const, message: "no such tool", retryable: false };
    const ev: WardenEvent = { ...envelope, type: "ToolCallRejected", data: { stage: "registry", error } };
    expect(resultFromEvent(ev, true)).toEqual({ callId: "call1", ok: false, status: "rejected", error });
  });

  it("turns a denial into denied with the approver and reason in the message", () => {
    const ev: WardenEvent = { ...envelope, type: "ApprovalDenied", data: { approvalId: "ap1", approver: "alice", reason: "wrong customer" } };
    const r = resultFromEvent(ev, false);
    expect(r).toMatchObject({ ok: false, status: "denied", approvalId: "ap1", error: { code: "APPROVAL_DENIED" } });
    expect(r?.error?.message).toContain("alice");
    expect(r?.error?.message).toContain("wrong customer");
  });

  it("turns an expiry into expired and an unknown outcome into outcome_unknown", () => {
    const exp: WardenEvent = { ...envelope, type: "ApprovalExpired", data: { approvalId: "ap1", expiresAt: "2025-01-01T00:15:00.000Z" } };
    expect(resultFromEvent(exp, true)).toMatchObject({ status: "expired", error: { code: "APPROVAL_EXPIRED" } });
    const unk: WardenEvent = {
      ...envelope,
      type: "ToolCallOutcomeUnknown",
      data: { reason: "executor crashed mid-run", startedEventId: "ev5", executorId: "ex1" },
    };
    expect(resultFromEvent(unk, false)).toMatchObject({
      status: "outcome_unknown",
      error: { code: "OUTCOME_UNKNOWN", message: "executor crashed mid-run" },
    });
  });

  it("returns at an approval request unless the caller waits", () => {
    expect(resultFromEvent(approvalRequested, false)).toMatchObject({
      ok: false,
      status: "awaiting_approval",
      requiresConfirm: true,
      approvalId: "ap1",
      error: { code: "CONFIRMATION_REQUIRED" },
    });
    expect(resultFromEvent(approvalRequested, true)).toBeUndefined();
  });

  it("lets the call go on at intermediate events", () => {
    const ev: WardenEvent = {
      ...envelope,
      type: "ApprovalGranted",
      data: {
        approvalId: "ap1",
        approver: "alice",
        argsHash: HASH,
        descriptorHash: HASH,
        version: "1.0.0",
        grantedAt: "2025-01-01T00:01:00.000Z",
        expiresAt: "2025-01-01T00:06:00.000Z",
        nonce: "n1",
        signature: "sig",
        keyId: "k1",
      },
    };
    expect(resultFromEvent(ev, false)).toBeUndefined();
  });
});

describe("decidersOfRequest", () => {
  it("names the card's deciders, and the requester first when it may confirm its own call", () => {
    const asked = approvalRequested as Extract<WardenEvent, { type: "ApprovalRequested" }>;
    expect(decidersOfRequest({ ...asked, data: { ...asked.data, deciders: ["alice", "dana"] } })).toEqual(["alice", "dana"]);
    expect(decidersOfRequest({ ...asked, data: { ...asked.data, approvers: { human: true, requesterMayConfirm: true }, deciders: ["alice"] } })).toEqual(["bot", "alice"]);
    expect(resultFromEvent({ ...asked, data: { ...asked.data, deciders: ["alice"] } }, false)).toMatchObject({ status: "awaiting_approval", deciders: ["alice"] });
    expect(resultFromEvent(asked, false)).not.toHaveProperty("deciders");
  });
});

describe("pendingResult", () => {
  it("reports a wait timeout as a retryable pending result that keeps the approval id", () => {
    expect(pendingResult("call1", 100)).toMatchObject({ ok: false, status: "pending", error: { code: "WAIT_TIMEOUT", retryable: true } });
    expect(pendingResult("call1", 100, "ap1")).toMatchObject({ approvalId: "ap1", requiresConfirm: true });
  });
});
