import { z } from "zod";
import { type LedgerExceeded, type LedgerReservation } from "@warden/contracts/events";
import { TokenSchema, toWireName } from "@warden/contracts/subjects";
import { type ToolDescriptor } from "@warden/contracts/descriptor";
import { type LedgerBudget, type LedgerPeriod, type PolicyDocument } from "@warden/contracts/policy";
import { anyGlob } from "./glob.js";

/** The rule id of a call refused because a ledger budget had no room (rejected BUDGET_EXCEEDED). */
export const LEDGER_RULE = "budget.ledger";

/** Cost units one call of a tool uses: what its descriptor declares, else 1. */
export function toolCost(tool: Pick<ToolDescriptor, "cost">): number {
  return tool.cost ?? 1;
}

/** One period of a ledger: its id (in keys and events), and when it began and ends (UTC). */
export interface LedgerPeriodWindow {
  /** `2030-01-01` for a day, `2030-01-01T10` for an hour. */
  readonly id: string;
  readonly startsAt: string;
  readonly resetsAt: string;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** The period `nowMs` falls in: the UTC hour, or the UTC day from midnight. */
export function periodOf(period: LedgerPeriod, nowMs: number): LedgerPeriodWindow {
  const size = period === "hour" ? HOUR_MS : DAY_MS;
  const start = Math.floor(nowMs / size) * size;
  const iso = new Date(start).toISOString();
  return { id: period === "hour" ? iso.slice(0, 13) : iso.slice(0, 10), startsAt: iso, resetsAt: new Date(start + size).toISOString() };
}

/** What one call is charged in one ledger: who holds the budget, in which period, how much, against what limits. */
export interface LedgerCharge {
  readonly ledger: string;
  readonly holder: string;
  readonly period: string;
  readonly resetsAt: string;
  readonly calls: number;
  readonly cost: number;
  readonly limit: { readonly calls?: number; readonly cost?: number };
}

/** Whose budget a ledger charges for a call, or undefined when the call does not count against it. */
function ledgerHolder(doc: PolicyDocument, ledger: LedgerBudget, call: { principal: string; tool: string }): string | undefined {
  if (ledger.principal !== undefined) return anyGlob(ledger.principal, call.principal) ? call.principal : undefined;
  if (ledger.team !== undefined) {
    const members = Object.hasOwn(doc.teams ?? {}, ledger.team) ? (doc.teams?.[ledger.team] ?? []) : [];
    return members.includes(call.principal) ? ledger.team : undefined;
  }
  if (ledger.tool !== undefined) return anyGlob(ledger.tool, call.tool) ? toolHolder(call.tool) : undefined;
  return undefined;
}

/** A tool's holder token in a tool ledger: `tool-<wire name>` (one key token per tool). */
export function toolHolder(tool: string): string {
  return `tool-${toWireName(tool)}`;
}

/**
 * The ledgers of `budgets.ledgers` a call counts against, in document order, each with what it is
 * charged now: one call, and its tool's cost units.
 */
export function ledgerChargesOf(doc: PolicyDocument, call: { principal: string; tool: string; cost: number }, nowMs: number): LedgerCharge[] {
  const out: LedgerCharge[] = [];
  for (const l of doc.budgets.ledgers ?? []) {
    const holder = ledgerHolder(doc, l, call);
    if (holder === undefined) continue;
    const p = periodOf(l.period, nowMs);
    out.push({
      ledger: l.id,
      holder,
      period: p.id,
      resetsAt: p.resetsAt,
      calls: 1,
      cost: call.cost,
      limit: { ...(l.calls === undefined ? {} : { calls: l.calls }), ...(l.cost === undefined ? {} : { cost: l.cost }) },
    });
  }
  return out;
}

const AmountSchema = z.object({ calls: z.int().nonnegative(), cost: z.int().nonnegative() });

/**
 * One holder's ledger as stored (`warden_budgets`, key `ledger.<id>.<holder>`): the period it
 * counts, what settled calls spent in it, and the reservations of calls not settled yet (one per
 * call, so reserving and settling twice change nothing). A stored period that is over counts as
 * empty: the first reservation of the next period starts it afresh.
 */
export const LedgerStateSchema = z.object({
  period: z.string().min(1).max(40),
  resetsAt: z.iso.datetime(),
  spent: AmountSchema,
  /** `domain`: where the call's claim slot is, so a refusal can find the holds of calls cancelled before they started (older holds lack it). */
  holds: z.array(AmountSchema.extend({ callId: TokenSchema, domain: TokenSchema.optional() })),
});
export type LedgerState = z.infer<typeof LedgerStateSchema>;

/** Spent plus held. */
export function ledgerUsed(state: LedgerState): { calls: number; cost: number } {
  let calls = state.spent.calls;
  let cost = state.spent.cost;
  for (const h of state.holds) {
    calls += h.calls;
    cost += h.cost;
  }
  return { calls, cost };
}

function freshState(charge: Pick<LedgerCharge, "period" | "resetsAt">): LedgerState {
  return { period: charge.period, resetsAt: charge.resetsAt, spent: { calls: 0, cost: 0 }, holds: [] };
}

/** The state a charge is decided against: the stored one if it counts the charge's period, else an empty one. */
function currentState(state: LedgerState | undefined, charge: Pick<LedgerCharge, "period" | "resetsAt">): LedgerState {
  return state !== undefined && state.period === charge.period ? state : freshState(charge);
}

export type LedgerReserved =
  | { readonly ok: true; readonly next: LedgerState; /** The call held a reservation already: nothing to write. */ readonly already: boolean }
  | { readonly ok: false; readonly exceeded: LedgerExceeded };

/**
 * Reserves a call's charge: refused when spent plus held plus the charge would pass a limit,
 * saying what is left and when the period resets.
 */
export function reserveIn(state: LedgerState | undefined, charge: LedgerCharge, callId: string, domain?: string): LedgerReserved {
  const current = currentState(state, charge);
  if (current.holds.some((h) => h.callId === callId)) return { ok: true, next: current, already: true };
  const used = ledgerUsed(current);
  const { limit } = charge;
  const over = (limit.calls !== undefined && used.calls + charge.calls > limit.calls) || (limit.cost !== undefined && used.cost + charge.cost > limit.cost);
  if (over) {
    return {
      ok: false,
      exceeded: {
        ledger: charge.ledger,
        holder: charge.holder,
        period: charge.period,
        left: {
          ...(limit.calls === undefined ? {} : { calls: Math.max(0, limit.calls - used.calls) }),
          ...(limit.cost === undefined ? {} : { cost: Math.max(0, limit.cost - used.cost) }),
        },
        limit: { ...limit },
        needed: { calls: charge.calls, cost: charge.cost },
        resetsAt: charge.resetsAt,
      },
    };
  }
  const hold = { callId, calls: charge.calls, cost: charge.cost, ...(domain === undefined ? {} : { domain }) };
  return { ok: true, already: false, next: { ...current, holds: [...current.holds, hold] } };
}

/** How a call's reservation ends: `spent` when the call ran (or may have), `released` when it did not or failed. */
export type LedgerSettlement = "spent" | "released";

/**
 * Settles a call's reservation: a released one is room again, a spent one moves to `spent`.
 * Undefined when there is nothing to change (no such reservation, or its period is over).
 */
export function settleIn(state: LedgerState | undefined, reservation: Pick<LedgerReservation, "period">, callId: string, how: LedgerSettlement): LedgerState | undefined {
  if (state === undefined || state.period !== reservation.period) return undefined;
  const hold = state.holds.find((h) => h.callId === callId);
  if (hold === undefined) return undefined;
  const holds = state.holds.filter((h) => h.callId !== callId);
  const spent = how === "spent" ? { calls: state.spent.calls + hold.calls, cost: state.spent.cost + hold.cost } : state.spent;
  return { ...state, spent, holds };
}

/** The reservation a charge made, as ToolPolicyChecked records it. */
export function reservationOf(charge: LedgerCharge): LedgerReservation {
  return { ledger: charge.ledger, holder: charge.holder, period: charge.period, calls: charge.calls, cost: charge.cost };
}

/** `left` as words: `3 calls, 40 cost units left`. */
function ledgerLeftText(e: Pick<LedgerExceeded, "left">): string {
  const parts = [
    ...(e.left.calls === undefined ? [] : [`${e.left.calls} call${e.left.calls === 1 ? "" : "s"}`]),
    ...(e.left.cost === undefined ? [] : [`${e.left.cost} cost unit${e.left.cost === 1 ? "" : "s"}`]),
  ];
  return `${parts.join(", ")} left`;
}

/** The reason a ledger refusal records. */
export function ledgerExceededReason(e: LedgerExceeded): string {
  const whose = e.holder.startsWith("tool-") ? `tool ${e.holder.slice(5)}` : e.holder;
  const limits = [
    ...(e.limit.calls === undefined ? [] : [`${e.limit.calls} calls`]),
    ...(e.limit.cost === undefined ? [] : [`${e.limit.cost} cost units`]),
  ].join(", ");
  return `budget ${e.ledger} of ${whose} is used up for ${e.period} (${limits}; this call needs ${e.needed.calls} call, ${e.needed.cost} cost units): ${ledgerLeftText(e)}, resets at ${e.resetsAt}`;
}
