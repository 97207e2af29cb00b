import type { WardenEvent } from "@warden/contracts/events";
import type { ApprovalInboxRecord } from "@warden/contracts/read-models";

/** `warden_approvals` keys an event touches: its approvalId, for approval events. */
export function approvalKeysOf(e: WardenEvent): string[] {
  switch (e.type) {
    case "ApprovalRequested":
    case "ApprovalGranted":
    case "ApprovalDenied":
    case "ApprovalExpired":
      return [e.data.approvalId];
    case "ToolCallCancelled":
      return e.data.approvalId === undefined ? [] : [e.data.approvalId];
    default:
      return [];
  }
}

/**
 * Applies an approval event to the inbox record of its approvalId; pure. The first request makes
 * the record, the first decision settles it; a decision without a request makes nothing (the
 * call model records that violation).
 */
export function applyApprovalEvent(record: ApprovalInboxRecord | undefined, e: WardenEvent, seq: number): ApprovalInboxRecord | undefined {
  if (e.type === "ApprovalRequested") {
    if (record !== undefined) return { ...record, seq };
    const d = e.data;
    return {
      approvalId: d.approvalId,
      callId: e.callId,
      domain: e.domain,
      tool: e.tool,
      title: d.title,
      grade: d.grade,
      principal: e.principal,
      mode: e.mode,
      argsHash: d.argsHash,
      argsPreview: d.argsPreview,
      reason: d.reason,
      requestedAt: e.ts,
      expiresAt: d.expiresAt,
      approvers: { human: d.approvers.human, requesterMayConfirm: d.approvers.requesterMayConfirm },
      status: "pending",
      requestEventId: e.eventId,
      seq,
    };
  }
  if (record === undefined) return undefined;
  // a decision for this approvalId from another call settles nothing
  if (record.status !== "pending" || e.callId !== record.callId) return { ...record, seq };
  switch (e.type) {
    case "ApprovalGranted":
      return { ...record, status: "granted", decidedBy: e.data.approver, decidedAt: e.data.grantedAt, seq };
    case "ApprovalDenied":
      return { ...record, status: "denied", decidedBy: e.data.approver, decidedAt: e.ts, denialReason: e.data.reason, seq };
    case "ApprovalExpired":
      return { ...record, status: "expired", decidedAt: e.ts, seq };
    case "ToolCallCancelled":
      return { ...record, status: "cancelled", decidedBy: e.data.by, decidedAt: e.ts, seq };
    default:
      return { ...record, seq };
  }
}
