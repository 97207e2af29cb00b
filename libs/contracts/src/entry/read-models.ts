/** @warden/contracts/read-models: the read models the projector keeps, and the kinds of violation it finds. */
export { AUDIT_VIOLATION_KINDS, CALL_VIOLATION_KINDS, type AuditViolationKind, type CallViolationKind } from "../violation-kinds.js";
export {
  APPROVAL_INBOX_STATUSES,
  ApprovalInboxRecordSchema,
  BUDGET_MODEL_KINDS,
  BudgetModelSchema,
  CALL_COUNTERS,
  CallCountersSchema,
  ProjectorCursorSchema,
  type ApprovalInboxRecord,
  type BudgetModel,
  type CallCounter,
  type CallCounters,
  type ProjectorCursor,
} from "../read-models.js";
