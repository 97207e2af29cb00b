export { mayDecide, quorumOf, type ApprovalFacts, type Quorum, type QuorumFacts } from "./approval-authority.js";
export {
  CHECK_ERROR_CODES,
  checkPolicyText,
  type CheckErrorCode,
  type PolicyCheck,
  type PolicyDiagnostic,
} from "./check-document.js";
export { closestNames } from "./closest.js";
export { compileToolView } from "./compile-tool-view.js";
export { intentTerms, rankCandidates, scoreTool, termsOf } from "./resolve-intent.js";
export {
  decideRequest,
  DecideRequestSchema,
  parseDecideRequest,
  type DecideRequest,
  type DecideRequestInput,
  type DecideResult,
  type NotEvaluated,
} from "./decide.js";
export { diffPolicyDocuments, type PolicyChange } from "./diff-documents.js";
export { parsePolicyDocument } from "./document.js";
export { effectiveFlags, flagGranted } from "./effective-flags.js";
export { evaluateCall, VIEW_NOT_SHOWN_RULE, type CallEvaluation } from "./evaluate-call.js";
export {
  checkGates,
  DEFAULT_TABLE,
  evaluatePolicy,
  GATE_RULES,
  ruleMatches,
  whenHolds,
  type CallFacts,
  type GateRuleId,
  type PolicyEvaluation,
} from "./evaluate.js";
export { anyGlob, globMatch } from "./glob.js";
export {
  ATTENUATION_CHECKED_RULE,
  DESCRIPTOR_BOUND_RULE,
  HISTORY_GATES,
  historyGateOf,
  RUN_BUDGET_RULE,
  type HistoryGate,
} from "./history-gates.js";
export {
  evaluateHistory,
  findingsByRule,
  HISTORY_ENTRY_STATES,
  HISTORY_FULL_RULE,
  HistoryEntrySchema,
  HistoryIndexStateSchema,
  historyKeyOf,
  historyProbesOf,
  historyRules,
  isCounted,
  needsTreeRoot,
  heldAgainstLimit,
  pendingOutcomes,
  recordIn,
  settleHistoryIn,
  windowMsOf,
  withOutcomes,
  type HistoryCall,
  type HistoryEntry,
  type HistoryEntryState,
  type HistoryIndexState,
  type HistoryProbe,
  type HistoryRecorded,
  type HistorySettlement,
} from "./history.js";
export { HistoryRecordSchema, HistoryRecordsSchema, HistoryReplay, replayHistory, type HistoryRecord } from "./history-replay.js";
export {
  LEDGER_RULE,
  ledgerChargesOf,
  ledgerExceededReason,
  LedgerStateSchema,
  ledgerUsed,
  periodOf,
  reservationOf,
  reserveIn,
  settleIn,
  toolCost,
  toolHolder,
  type LedgerCharge,
  type LedgerPeriodWindow,
  type LedgerReserved,
  type LedgerSettlement,
  type LedgerState,
} from "./ledger.js";
export { LINT_CODES, lintPolicyDocument, type DocumentPath, type LintCode, type LintContext, type PolicyFinding } from "./lint-document.js";
export { RATE_RULES, rateBucketsOf, type RateBucket, type RateRuleId } from "./rate-limits.js";
export { takeToken, TokenBucketStateSchema, type TokenBucketState, type TokenTaken } from "./token-bucket.js";
export { isNamed, isNamedHuman, notAPersonReason, principalOf, UNKNOWN_PRINCIPAL } from "./principals.js";
export { newestEnabled, versionsByName } from "./tool-versions.js";
export { toolVisibility, type Visibility } from "./visibility.js";
export {
  whatIf,
  type DecisionSide,
  type NotReplayedReason,
  type RecordedDecision,
  type WhatIfChange,
  type WhatIfExample,
  type WhatIfOptions,
  type WhatIfReport,
} from "./what-if.js";
export {
  guardedByUntrusted,
  hasRunLabelRules,
  MAX_RUN_LABEL_ENTRIES,
  recordRunLabels,
  RUN_LABELS_FULL_RULE,
  runLabelsOf,
  RunLabelsStateSchema,
  settleRunLabels,
  UNTRUSTED_RULE,
  withRunLabelOutcomes,
  type RunLabelEntry,
  type RunLabelSettlement,
  type RunLabelsRecorded,
  type RunLabelsState,
} from "./run-labels.js";
