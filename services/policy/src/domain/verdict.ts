import type { LedgerExceeded, LedgerReservation, ShadowDecision, ToolArgsValidated } from "@warden/contracts/events";
import type { ErrorCode } from "@warden/contracts/errors";
import type { ToolRecord } from "@warden/contracts/descriptor";
import type { DataLabel, Decision, RunLabelSource, HistoryFinding, HistoryHold, PolicyDocument } from "@warden/contracts/policy";
import { DESCRIPTOR_BOUND_RULE, evaluateCall, findingsByRule, HISTORY_FULL_RULE, LEDGER_RULE, MAX_RUN_LABEL_ENTRIES, RUN_LABELS_FULL_RULE, ledgerExceededReason, RATE_RULES, RUN_BUDGET_RULE, type HistoryProbe, type RateBucket } from "@warden/policy-engine";

// the engine names the rules that depend on history, so offline decisions and what-if replays know them
export { DESCRIPTOR_BOUND_RULE };
export const BUDGET_RULE = RUN_BUDGET_RULE;
/** A delegated call over what its delegating subagent has left (see attenuation.ts). */
export const ATTENUATION_BUDGET_RULE = "attenuation.budget";

/** What the policy stage decided for one call, before it becomes an event. */
export interface Verdict {
  readonly decision: Decision;
  readonly ruleIds: readonly string[];
  readonly reason: string;
  /** Set on a rate-limit deny: when the caller's bucket holds a token again. */
  readonly retryAfterMs?: number;
  /**
   * What shadow rules would have decided; kept only while the rules' decision stands (a history
   * gate that replaces the verdict makes a new one without it).
   */
  readonly shadow?: ShadowDecision;
  /** The ledger budgets reserved for the call (set when it was admitted). */
  readonly reservations?: readonly LedgerReservation[];
  /** The ledger that refused the call. */
  readonly exceeded?: LedgerExceeded;
  /** A delegated call's principal at the top of its checked chain, on whose behalf it runs. */
  readonly onBehalfOf?: string;
  /** The history conditions the decision evaluated, with the earlier calls each counted. */
  readonly history?: readonly HistoryFinding[];
  /** The history index keys the admitted call was recorded in. */
  readonly historyHolds?: readonly HistoryHold[];
  /** The labels the call's result will carry (from its descriptor), and the run they join. */
  readonly resultLabels?: readonly DataLabel[];
  readonly labelRun?: string;
  /** The run's labels the decision read, each with the result that brought it. */
  readonly runLabels?: readonly RunLabelSource[];
}

/**
 * Decides a validated call: the descriptor it was validated against must still be the one
 * stored under its version (same hash), then the engine decides (a model only what its ToolView
 * lists). The budget comes after.
 */
export function decideCall(
  doc: PolicyDocument,
  record: ToolRecord | undefined,
  event: ToolArgsValidated,
  history?: readonly HistoryFinding[],
  runLabels?: ReadonlyMap<string, RunLabelSource>,
): Verdict {
  const { version, descriptorHash } = event.data;
  if (record === undefined) {
    return deny(DESCRIPTOR_BOUND_RULE, `${event.tool}@${version} is not registered; the call was validated against a descriptor that no longer exists`);
  }
  if (record.descriptorHash !== descriptorHash) {
    return deny(DESCRIPTOR_BOUND_RULE, `${event.tool}@${version} changed since the call was validated (descriptor hash differs)`);
  }
  const e = evaluateCall(doc, {
    tool: record.descriptor,
    principal: event.principal,
    mode: event.mode,
    flags: event.data.flags,
    scope: event.data.scope,
    ...(history === undefined ? {} : { history: findingsByRule(history) }),
    ...(runLabels === undefined ? {} : { runLabels }),
  });
  return { decision: e.decision, ruleIds: [...e.ruleIds], reason: e.reason, ...(e.shadow === undefined ? {} : { shadow: e.shadow }) };
}

/** A call refused because a history index key it must be recorded in holds all a limit may keep. */
export function historyFull(probe: HistoryProbe): Verdict {
  return deny(HISTORY_FULL_RULE, `the history of rule ${probe.ruleId} for ${probe.condition.scope} ${probe.holder} holds as many calls as it may keep within ${probe.condition.within}: the limit cannot count this call, so it is refused`);
}

/** A call refused because its run's label key holds as many calls in flight as it may keep. */
export function runLabelsFull(run: string): Verdict {
  return deny(RUN_LABELS_FULL_RULE, `run ${run} has ${MAX_RUN_LABEL_ENTRIES} labelled calls in flight: the policy cannot keep this one's labels, so it is refused`);
}

/** A call refused because a ledger budget has no room left for it this period. */
export function ledgerRefused(exceeded: LedgerExceeded): Verdict {
  return { decision: "deny", ruleIds: [LEDGER_RULE], reason: ledgerExceededReason(exceeded), exceeded };
}

export function budgetExceeded(runId: string, max: number): Verdict {
  return deny(BUDGET_RULE, `run ${runId} has used its ${max} calls (budgets.maxCallsPerRun)`);
}

/** A call refused at admission because one of its principal's buckets is empty. */
export function rateRefused(bucket: RateBucket, principal: string, retryAfterMs: number): Verdict {
  const what =
    bucket.rule === RATE_RULES.principalBudget
      ? `${principal} has used its calls for now (budgets.maxCallsPerPrincipal, ${bucket.limit.burst} calls)`
      : bucket.rule === RATE_RULES.tool
        ? `${principal} calls this tool faster than rateLimits.perTool allows (${bucket.limit.ratePerSecond}/s, burst ${bucket.limit.burst})`
        : `${principal} calls faster than its rate limit allows (${bucket.limit.ratePerSecond}/s, burst ${bucket.limit.burst})`;
  return { decision: "deny", ruleIds: [bucket.rule], reason: `${what}; retry after ${retryAfterMs} ms`, retryAfterMs };
}

/** A call that would run now, to a domain no executor has a live heartbeat for. */
export const EXECUTOR_UNAVAILABLE_RULE = "executor.unavailable";

/** Refused at once rather than run whenever an executor comes back (UNAVAILABLE, retryable). */
export function executorUnavailable(domain: string): Verdict {
  return deny(EXECUTOR_UNAVAILABLE_RULE, `no executor of domain ${domain} is running (no heartbeat): the call was not started; retry once its executor is up`);
}

/** The error a denied call is rejected with, from the rule that denied it. */
export function rejectionCode(ruleIds: readonly string[]): ErrorCode {
  if (ruleIds.includes(EXECUTOR_UNAVAILABLE_RULE)) return "UNAVAILABLE";
  if (ruleIds.includes(DESCRIPTOR_BOUND_RULE)) return "DESCRIPTOR_CHANGED";
  if (ruleIds.includes(RATE_RULES.principal) || ruleIds.includes(RATE_RULES.tool)) return "RATE_LIMITED";
  if (ruleIds.includes(HISTORY_FULL_RULE) || ruleIds.includes(RUN_LABELS_FULL_RULE)) return "BUDGET_EXCEEDED";
  if (ruleIds.includes(BUDGET_RULE) || ruleIds.includes(ATTENUATION_BUDGET_RULE) || ruleIds.includes(RATE_RULES.principalBudget) || ruleIds.includes(LEDGER_RULE)) return "BUDGET_EXCEEDED";
  return "POLICY_DENIED";
}

function deny(rule: string, reason: string): Verdict {
  return { decision: "deny", ruleIds: [rule], reason };
}
