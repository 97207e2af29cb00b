/**
 * Integrity violations the call reducer records: each names an invariant of the design (§6) or
 * a transition the state machine does not allow. They are recorded, never ignored.
 */
export const CALL_VIOLATION_KINDS = [
  /** ToolCallStarted without a policy allow or a grant for this call (invariants 3, 5). */
  "started_without_authorisation",
  /** A `send` started on a policy allow, without a grant (invariant 4). */
  "send_without_grant",
  /** The policy allowed an `llm` caller's `send`: it must wait for a person or be denied (invariant 4, default.send.llm). */
  "llm_send_allowed",
  /** A grant whose argsHash differs from the validated (and requested) args (invariant 5). */
  "grant_args_mismatch",
  /** A grant whose descriptorHash or version differs from the call's (invariant 5). */
  "grant_descriptor_mismatch",
  /** A grant or decision for an approval this call never requested. */
  "grant_without_request",
  /** A call started after its grant expired (invariant 5). */
  "grant_expired_at_start",
  /** A decision, approval request or claim bound to other args or another descriptor than validated (invariants 1, 5). */
  "binding_mismatch",
  /** A second result (ToolCallFinished / ToolCallOutcomeUnknown) for one call (invariant 6). */
  "finished_twice",
  /** A result without a ToolCallStarted claim (invariant 6). */
  "finished_without_start",
  /** A truncated output without its artifact (invariant 8). */
  "truncated_without_artifact",
  /** A state-changing event after the call ended. */
  "after_terminal",
  /** Any other transition the state machine does not allow (out of order, a second request). */
  "invalid_transition",
  /** An event of the call that names another domain, principal, mode, run, parent or tool. */
  "identity_mismatch",
  /** A subagent's child call that is not in `llm` mode (invariant 12). */
  "child_not_llm",
] as const;
export type CallViolationKind = (typeof CALL_VIOLATION_KINDS)[number];

/** Violations only an audit can find: they need the policy document or several calls. */
export const AUDIT_VIOLATION_KINDS = [
  /** A grant by a principal that is not a human in the policy document (invariant 4). */
  "grant_approver_not_human",
  /** A grant by a person the policy document does not let approve the call's grade. */
  "grant_approver_not_allowed",
  /** The requester approved their own call outside `human` mode. */
  "grant_by_requester",
  /** A run admitted more calls than budgets.maxCallsPerRun. */
  "budget_exceeded",
] as const;
export type AuditViolationKind = (typeof AUDIT_VIOLATION_KINDS)[number];
