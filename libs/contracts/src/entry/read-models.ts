/** @warden/contracts/read-models: the read models the projector keeps, and the kinds of violation it finds. */
export { AUDIT_VIOLATION_KINDS, CALL_VIOLATION_KINDS, type AuditViolationKind, type CallViolationKind } from "../violation-kinds.js";
export {
  APPROVAL_INBOX_STATUSES,
  type ApprovalInboxRecord,
  ApprovalInboxRecordSchema,
  BUDGET_MODEL_KINDS,
  type BudgetModel,
  BudgetModelSchema,
  CALL_COUNTERS,
  type CallCounter,
  type CallCounters,
  CallCountersSchema,
  type ProjectorCursor,
  ProjectorCursorSchema,
} from "../read-models.js";
