import { describe, expect, it } from "vitest";
import { openApprovalsOf } from "./approval-quota.js";
import type { ApprovalRecord } from "./approval-record.js";

const NOW = Date.parse("2026-12-01T10:00:00.000Z");

function record(principal: string, status: ApprovalRecord["status"], expiresAt = "2026-12-01T11:00:00.000Z"): ApprovalRecord {
  return {
    approvalId: `a-${Math.random().toString(36).slice(2)}`,
    callId: "c1",
    domain: "ticket",
    tool: "ticket.submit",
    title: "Submit",
    grade: "write",
    principal,
    mode: "plan",
    argsHash: "sha256:0",
    argsPreview: "{}",
    reason: "r",
    requestedAt: "2026-12-01T09:00:00.000Z",
    expiresAt,
    approvers: { human: true, requesterMayConfirm: false },
    requestEventId: "e1",
    status,
  };
}

describe("openApprovalsOf", () => {
  it("counts the requester's pending, unexpired approvals only", () => {
    const records = [
      record("bot", "pending"),
      record("bot", "pending"),
      record("bot", "granted"),
      record("bot", "denied"),
      record("bot", "pending", "2026-12-01T09:59:59.000Z"),
      record("alice", "pending"),
    ];
    expect(openApprovalsOf(records, "bot", NOW)).toBe(2);
    expect(openApprovalsOf(records, "alice", NOW)).toBe(1);
    expect(openApprovalsOf(records, "carol", NOW)).toBe(0);
  });
});
