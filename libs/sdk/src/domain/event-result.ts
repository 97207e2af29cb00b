import { type ApprovalRequested, type ToolResult, type WardenEvent } from "@warden/contracts/events";
import { wardenError } from "@warden/contracts/errors";

/**
 * The caller's answer for an event of its call, or undefined when the call goes on. A
 * non-waiting caller returns at ApprovalRequested; a waiting one only at a terminal event.
 */
export function resultFromEvent(event: WardenEvent, wait: boolean): ToolResult | undefined {
  const callId = event.callId;
  switch (event.type) {
    case "ToolCallFinished": {
      const d = event.data;
      const extras = {
        ...(d.artifacts.length > 0 ? { artifacts: d.artifacts } : {}),
        ...(d.truncated ? { truncated: true } : {}),
      };
      if (d.ok) return { callId, ok: true, status: "succeeded", ...(d.output === undefined ? {} : { data: d.output }), ...extras };
      return { callId, ok: false, status: "failed", error: d.error ?? wardenError("HANDLER_ERROR", "the tool failed"), ...extras };
    }
    case "ToolCallRejected":
      return { callId, ok: false, status: "rejected", error: event.data.error };
    case "ApprovalDenied": {
      const { approver, reason, approvalId } = event.data;
      return { callId, ok: false, status: "denied", approvalId, error: wardenError("APPROVAL_DENIED", `denied by ${approver}: ${reason}`) };
    }
    case "ApprovalExpired": {
      const { approvalId, expiresAt } = event.data;
      return {
        callId,
        ok: false,
        status: "expired",
        approvalId,
        error: wardenError("APPROVAL_EXPIRED", `approval ${approvalId} expired at ${expiresAt} without a decision`),
      };
    }
    case "ToolCallOutcomeUnknown":
      return { callId, ok: false, status: "outcome_unknown", error: wardenError("OUTCOME_UNKNOWN", event.data.reason) };
    case "ToolCallCancelled": {
      const { by, reason } = event.data;
      return { callId, ok: false, status: "cancelled", error: wardenError("CANCELLED", `cancelled by ${by} before it started${reason === "" ? "" : `: ${reason}`}`) };
    }
    case "ApprovalRequested":
      return wait ? undefined : awaitingApproval(callId, event.data.approvalId, event.data.reason, decidersOfRequest(event));
    default:
      return undefined;
  }
}

/** Who may decide, as the card names them: the requester first when it may confirm its own call. */
export function decidersOfRequest(event: ApprovalRequested): string[] {
  const deciders = event.data.deciders ?? [];
  return event.data.approvers.requesterMayConfirm && !deciders.includes(event.principal) ? [event.principal, ...deciders] : [...deciders];
}

export function awaitingApproval(callId: string, approvalId: string, reason: string, deciders: readonly string[] = []): ToolResult {
  return {
    callId,
    ok: false,
    status: "awaiting_approval",
    requiresConfirm: true,
    approvalId,
    ...(deciders.length === 0 ? {} : { deciders: [...deciders] }),
    error: wardenError("CONFIRMATION_REQUIRED", `this call waits for a person's approval (${approvalId}): ${reason}`),
  };
}

/** What a caller gets when its wait ran out before the call ended. */
export function pendingResult(callId: string, timeoutMs: number, approvalId?: string, deciders: readonly string[] = []): ToolResult {
  return {
    callId,
    ok: false,
    status: "pending",
    ...(approvalId === undefined ? {} : { approvalId, requiresConfirm: true }),
    ...(approvalId === undefined || deciders.length === 0 ? {} : { deciders: [...deciders] }),
    error: wardenError("WAIT_TIMEOUT", `no outcome within ${timeoutMs} ms; the call may still complete (callId ${callId})`),
  };
}
