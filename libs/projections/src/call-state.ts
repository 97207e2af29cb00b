import type { EventType } from "@warden/contracts/events";

/**
 * Where a call is. `approved` means authorised to run: by a policy allow or by a human grant
 * (the call model says which).
 */
export const CALL_STATES = [
  "requested",
  "validated",
  "rejected",
  "awaiting_approval",
  "approved",
  "denied",
  "expired",
  "running",
  "succeeded",
  "failed",
  "outcome_unknown",
  "cancelled",
] as const;
export type CallState = (typeof CALL_STATES)[number];

export const TERMINAL_CALL_STATES = ["rejected", "denied", "expired", "succeeded", "failed", "outcome_unknown", "cancelled"] as const satisfies readonly CallState[];

export function isTerminalState(state: CallState): boolean {
  return (TERMINAL_CALL_STATES as readonly CallState[]).includes(state);
}

/** `none`: no event of the call has been seen yet. */
export type StateBefore = CallState | "none";

/** The states each event may arrive in; anything else breaks the state machine. */
export const ALLOWED_FROM: Record<EventType, readonly StateBefore[]> = {
  ToolCallRequested: ["none"],
  ToolArgsValidated: ["requested"],
  ToolPolicyChecked: ["validated"],
  ApprovalRequested: ["awaiting_approval"],
  ApprovalGranted: ["awaiting_approval"],
  ApprovalDenied: ["awaiting_approval"],
  ApprovalExpired: ["awaiting_approval"],
  ToolCallStarted: ["approved"],
  ToolCallFinished: ["running"],
  ToolCallOutcomeUnknown: ["running"],
  // the registry, the policy, or an executor's last check before running
  ToolCallRejected: ["requested", "validated", "awaiting_approval", "approved"],
  // what a subagent's model was shown on a turn; it changes nothing
  ToolViewCompiled: [...CALL_STATES, "none"],
  // a run that ended after the call already had its outcome: an annotation, never a second outcome
  ToolCallLateResult: ["succeeded", "failed", "outcome_unknown", "rejected"],
  // by its requester or an operator, before it started (it takes the claim's slot)
  ToolCallCancelled: ["requested", "validated", "awaiting_approval", "approved"],
  // a session grant made on this call's approval withdrawn, whenever: the call itself is unchanged
  SessionGrantRevoked: [...CALL_STATES],
  // the check of a run's output, before its outcome; a paused copy's may land after another's outcome
  ToolResultValidated: ["running", "succeeded", "failed", "outcome_unknown", "rejected"],
};

export function isAllowed(type: EventType, before: StateBefore): boolean {
  return ALLOWED_FROM[type].includes(before);
}
