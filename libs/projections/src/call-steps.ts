import type { EventType } from "@warden/contracts/events";
import { approvalClosed, approvalGranted, approvalRequested } from "./call-approval-steps.js";
import { argsValidated, cancelled, policyChecked, rejected, requested, sessionRevoked, viewCompiled } from "./call-request-steps.js";
import { ended, lateResult, resultValidated, started } from "./call-run-steps.js";
import type { CallStep } from "./call-step.js";

/** The step of each event type; the record makes a new event type a compile error until it has one. */
export const CALL_STEPS: { readonly [K in EventType]: CallStep<K> } = {
  ToolCallRequested: requested,
  ToolArgsValidated: argsValidated,
  ToolPolicyChecked: policyChecked,
  ApprovalRequested: approvalRequested,
  ApprovalGranted: approvalGranted,
  ApprovalDenied: approvalClosed,
  ApprovalExpired: approvalClosed,
  ToolCallStarted: started,
  ToolCallFinished: ended,
  ToolCallOutcomeUnknown: ended,
  ToolCallRejected: rejected,
  ToolViewCompiled: viewCompiled,
  ToolCallLateResult: lateResult,
  ToolCallCancelled: cancelled,
  SessionGrantRevoked: sessionRevoked,
  ToolResultValidated: resultValidated,
};

export function stepOf<K extends EventType>(type: K): CallStep<K> {
  return CALL_STEPS[type];
}
