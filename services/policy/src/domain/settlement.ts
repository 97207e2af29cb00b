import type { WardenEvent } from "@warden/contracts/events";
import type { HistorySettlement, LedgerSettlement } from "@warden/policy-engine";

/** The events that settle a call's ledger reservations (docs/policy.md, Budgets). */
export type SettlingEvent = Extract<WardenEvent, { type: "ToolCallFinished" | "ToolCallOutcomeUnknown" | "ToolCallRejected" | "ApprovalDenied" | "ApprovalExpired" }>;

/**
 * How a result settles the call's reservations: a call that ran is spent (also when its outcome is
 * unknown: it may have run); one that did not run or failed is released: a rejection after the
 * decision (the approval quota, the executor's checks), an approval denied or expired, a result
 * with ok false.
 */
export function settlementOf(event: SettlingEvent): LedgerSettlement {
  switch (event.type) {
    case "ToolCallFinished":
      return event.data.ok ? "spent" : "released";
    case "ToolCallOutcomeUnknown":
      return "spent";
    case "ToolCallRejected":
    case "ApprovalDenied":
    case "ApprovalExpired":
      return "released";
  }
}

/**
 * How a result settles the call's entries in the history index: finished ok is `ok` (what
 * `outcome: ok` conditions look for); an outcome unknown stays counted (it may have run); anything
 * else did not run or failed and is removed, as a ledger releases it.
 */
export function historySettlementOf(event: SettlingEvent): HistorySettlement {
  if (event.type === "ToolCallFinished") return event.data.ok ? "ok" : "released";
  return event.type === "ToolCallOutcomeUnknown" ? "unknown" : "released";
}

/**
 * A cheap look at a settling event's JSON before it is validated: the registry's and the policy's
 * own refusals come before any reservation (the policy reserves only what it admits), so they
 * settle nothing.
 */
export function maySettle(raw: unknown): boolean {
  if (typeof raw !== "object" || raw === null) return true;
  const r = raw as { type?: unknown; data?: { stage?: unknown } };
  return !(r.type === "ToolCallRejected" && (r.data?.stage === "registry" || r.data?.stage === "policy"));
}
