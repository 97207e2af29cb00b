import { HISTORY_FULL_RULE } from "./history.js";
import { LEDGER_RULE } from "./ledger.js";
import { RATE_RULES } from "./rate-limits.js";

/**
 * Gates of the policy stage whose answer depends on what happened before the call, not on the
 * document and the call alone: they cannot be decided offline (`decideRequest`) nor replayed
 * from one recorded request (`whatIf`).
 */
export const HISTORY_GATES = {
  /** rateLimits: the principal's (and principal and tool's) token buckets. */
  rateLimit: "rate_limit",
  /** budgets.maxCallsPerPrincipal: a slow bucket holding the principal's whole budget. */
  principalBudget: "principal_budget",
  /** budgets.maxCallsPerRun: the calls a run has already used. */
  runBudget: "run_budget",
  /** budgets.ledgers: what the principal, its team or the tool has reserved and spent this period. */
  ledger: "ledger_budget",
  /** A delegated call (parentCallId): the recorded chain of its delegating calls. */
  delegation: "delegation",
  /** The descriptor the call was validated against was gone or changed when it was decided. */
  descriptor: "descriptor",
  /** Rules' history conditions (`when.history`): the earlier calls of the run, principal or tree. */
  history: "history",
} as const;
export type HistoryGate = (typeof HISTORY_GATES)[keyof typeof HISTORY_GATES];

/** The rule ids the policy stage writes for those gates (services/policy checks it writes no other). */
export const RUN_BUDGET_RULE = "budget.max_calls_per_run";
export const DESCRIPTOR_BOUND_RULE = "invariant.descriptor_bound";
export const ATTENUATION_RULE_PREFIX = "attenuation.";
/** Added to a delegated call's rules when the chain check passed without changing the decision. */
export const ATTENUATION_CHECKED_RULE = "attenuation.checked";

/**
 * Which history gate made (or tightened) a recorded decision, from its rule ids; undefined when
 * the document's gates, table and rules alone decided it (a passed chain check,
 * `attenuation.checked`, changes nothing and does not count).
 */
export function historyGateOf(ruleIds: readonly string[]): HistoryGate | undefined {
  for (const id of ruleIds) {
    if (id === RATE_RULES.principal || id === RATE_RULES.tool) return HISTORY_GATES.rateLimit;
    if (id === RATE_RULES.principalBudget) return HISTORY_GATES.principalBudget;
    if (id === RUN_BUDGET_RULE) return HISTORY_GATES.runBudget;
    if (id === LEDGER_RULE) return HISTORY_GATES.ledger;
    if (id === DESCRIPTOR_BOUND_RULE) return HISTORY_GATES.descriptor;
    if (id === HISTORY_FULL_RULE) return HISTORY_GATES.history;
    if (id.startsWith(ATTENUATION_RULE_PREFIX) && id !== ATTENUATION_CHECKED_RULE) return HISTORY_GATES.delegation;
  }
  return undefined;
}

/** The rule ids of a decision the document alone made, less the chain check's pass mark. */
export function documentRuleIds(ruleIds: readonly string[]): string[] {
  return ruleIds.filter((id) => id !== ATTENUATION_CHECKED_RULE);
}
