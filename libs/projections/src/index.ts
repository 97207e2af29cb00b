export {
  AUDIT_MODES,
  auditRow,
  matchesAudit,
  shadowSummary,
  verifyCalls,
  type AuditFilter,
  type AuditRow,
  type Finding,
  type ShadowDisagreement,
  type ShadowSummary,
} from "./audit.js";
export { CallModelSchema, type CallModel } from "./call-model.js";
export { ALLOWED_FROM, CALL_STATES, isAllowed, isTerminalState, TERMINAL_CALL_STATES, type CallState, type StateBefore } from "./call-state.js";
export { DECODE_FAILURES, decodeCallMessage, decodeFailureText, fullDecodeCallMessage, type DecodedEvent, type DecodeFailure } from "./decode.js";
export { digestModel, digestModels } from "./digest.js";
export { emptyModelMaps, foldEvent, type ModelMaps } from "./fold.js";
export {
  APPROVALS_MODEL,
  BUDGETS_MODEL,
  CALLS_MODEL,
  READ_MODEL_NAMES,
  READ_MODELS,
  type AnyReadModelSpec,
  type ReadModelName,
  type ReadModelSpec,
} from "./read-models.js";
export { applyApprovalEvent, approvalKeysOf } from "./reduce-approval.js";
export { applyBudgetEvent, budgetKeysOf, counterOf, counterToolName, isBudgetModelKey, ZERO_COUNTERS } from "./reduce-budget.js";
export { ARGS_SUMMARY_CHARS } from "./call-request-steps.js";
export { GRANT_CLOCK_SKEW_MS, OUTPUT_SUMMARY_BYTES } from "./call-run-steps.js";
export { applyCallEvent, linkChildCall } from "./reduce-call.js";
export { actorOf, buildTrace, RESULT_PREVIEW_CHARS, type CallTrace, type TraceEntry, type TraceStep } from "./trace.js";
export { durationText } from "./duration-text.js";
export { esc as escapeHtml, traceHtml, type TraceHtmlOptions } from "./trace-html.js";
export { roundMs, SHORT_HASH_HEX, shortHash, stepPairs } from "./trace-pairs.js";
export {
  AUDIT_VIOLATION_KINDS,
  CALL_VIOLATION_KINDS,
  ViolationSchema,
  type AuditViolationKind,
  type CallViolationKind,
  type Violation,
} from "./violations.js";
