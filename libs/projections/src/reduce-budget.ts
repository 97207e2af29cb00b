import { type WardenEvent } from "@warden/contracts/events";
import { principalBudgetKey, resolveToolName, runBudgetKey, toolBudgetKey } from "@warden/contracts/subjects";
import { type BudgetModel, type CallCounter, type CallCounters } from "@warden/contracts/read-models";

export const ZERO_COUNTERS: CallCounters = {
  requested: 0,
  admitted: 0,
  started: 0,
  succeeded: 0,
  failed: 0,
  rejected: 0,
  denied: 0,
  expired: 0,
  outcome_unknown: 0,
};

/** The counter an event moves, if any. */
export function counterOf(e: WardenEvent): CallCounter | undefined {
  switch (e.type) {
    case "ToolCallRequested":
      return "requested";
    case "ToolPolicyChecked":
      return e.data.decision === "deny" ? undefined : "admitted";
    case "ToolCallStarted":
      return "started";
    case "ToolCallFinished":
      return e.data.ok ? "succeeded" : "failed";
    case "ToolCallRejected":
      return "rejected";
    case "ApprovalDenied":
      return "denied";
    case "ApprovalExpired":
      return "expired";
    case "ToolCallOutcomeUnknown":
      return "outcome_unknown";
    default:
      return undefined;
  }
}

/** The tool a counter is kept under: a wire name counts under its tool name. */
export function counterToolName(e: WardenEvent): string {
  return resolveToolName(e.tool) ?? e.tool;
}

/** `warden_budgets` keys an event counts under: its run, its tool and its principal. */
export function budgetKeysOf(e: WardenEvent): string[] {
  if (counterOf(e) === undefined) return [];
  return [runBudgetKey(e.correlationId), toolBudgetKey(counterToolName(e)), principalBudgetKey(e.principal)];
}

/** Applies one counting event to the model under `key`; pure. */
export function applyBudgetEvent(model: BudgetModel | undefined, key: string, e: WardenEvent, seq: number): BudgetModel | undefined {
  const counter = counterOf(e);
  if (counter === undefined) return model;
  const base: BudgetModel = model ?? newBudget(key, e);
  // a copy, then one counter moved: a computed member in the literal made V8 build every model in dictionary mode
  const counts = { ...base.counts };
  counts[counter] += 1;
  return { kind: base.kind, name: base.name, counts, seq };
}

function newBudget(key: string, e: WardenEvent): BudgetModel {
  if (key.startsWith("run.")) return { kind: "run", name: e.correlationId, counts: ZERO_COUNTERS, seq: 0 };
  if (key.startsWith("tool.")) return { kind: "tool", name: counterToolName(e), counts: ZERO_COUNTERS, seq: 0 };
  return { kind: "principal", name: e.principal, counts: ZERO_COUNTERS, seq: 0 };
}

/** The keys of `warden_budgets` this projection writes (other writers may keep other keys there). */
export function isBudgetModelKey(key: string): boolean {
  return key.startsWith("run.") || key.startsWith("tool.") || key.startsWith("principal.");
}
