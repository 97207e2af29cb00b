import type { EventOfType } from "@warden/contracts/events";
import { checkBinding } from "./call-checks.js";
import type { CallDraft, CallStep, StepContext, StepResult } from "./call-step.js";

export const approvalRequested: CallStep<"ApprovalRequested"> = (m, event, { flag }) => {
  const d = event.data;
  checkBinding(m, d, "the approval request", flag);
  if (m.approval === undefined) {
    m.approval = {
      approvalId: d.approvalId,
      argsHash: d.argsHash,
      descriptorHash: d.descriptorHash,
      version: d.version,
      requestedAt: event.ts,
      expiresAt: d.expiresAt,
      requesterMayConfirm: d.approvers.requesterMayConfirm,
      requestEventId: event.eventId,
    };
  }
  return { next: "awaiting_approval" };
};

export const approvalGranted: CallStep<"ApprovalGranted"> = (m, event, { flag }) => {
  const d = event.data;
  const a = m.approval;
  let named = false;
  if (a === undefined || a.approvalId !== d.approvalId) {
    flag("grant_without_request", a === undefined ? `grant of ${d.approvalId} without an ApprovalRequested` : `grant of ${d.approvalId}, the call requested ${a.approvalId}`);
    named = true;
  } else if (a.outcome !== undefined) {
    flag("after_terminal", `grant of an approval already ${a.outcome}`);
    named = true;
  }
  // an edited grant binds new args; the ones it was asked for must still be the validated ones
  const boundTo = d.edit?.originalArgsHash ?? d.argsHash;
  if (m.argsHash !== undefined && boundTo !== m.argsHash) flag("grant_args_mismatch", `grant argsHash ${boundTo}, validated ${m.argsHash}`);
  else if (a !== undefined && boundTo !== a.argsHash) flag("grant_args_mismatch", `grant argsHash ${boundTo}, requested ${a.argsHash}`);
  const descriptorHash = m.descriptorHash ?? a?.descriptorHash;
  const version = m.version ?? a?.version;
  if ((descriptorHash !== undefined && d.descriptorHash !== descriptorHash) || (version !== undefined && d.version !== version)) {
    flag("grant_descriptor_mismatch", `grant for ${d.version} ${d.descriptorHash}, call bound to ${version ?? "?"} ${descriptorHash ?? "?"}`);
  }
  if (a !== undefined && a.approvalId === d.approvalId && a.outcome === undefined) {
    m.approval = {
      ...a,
      outcome: "granted",
      approver: d.approver,
      decidedAt: d.grantedAt,
      grantExpiresAt: d.expiresAt,
      grantEventId: event.eventId,
      ...(d.edit === undefined ? {} : { editedArgsHash: d.argsHash }),
    };
  }
  return { next: "approved", named };
};

export function approvalClosed(m: CallDraft, event: EventOfType<"ApprovalDenied" | "ApprovalExpired">, { flag }: StepContext): StepResult {
  const d = event.data;
  const a = m.approval;
  let named = false;
  if (a === undefined || a.approvalId !== d.approvalId) {
    flag("grant_without_request", `${event.type} of ${d.approvalId}, the call requested ${a?.approvalId ?? "no approval"}`);
    named = true;
  } else if (a.outcome === undefined) {
    m.approval =
      event.type === "ApprovalDenied"
        ? { ...a, outcome: "denied", approver: event.data.approver, decidedAt: event.ts, denialReason: event.data.reason }
        : { ...a, outcome: "expired", decidedAt: event.ts };
  }
  return { next: event.type === "ApprovalDenied" ? "denied" : "expired", named };
}
