import type { LedgerBudget, PolicyDocument } from "@warden/contracts/policy";
import { periodOf, toolHolder, type LedgerState } from "@warden/policy-engine";
import { renderTable } from "../output.js";

/** One holder's ledger as `warden budgets` shows it, for the period in progress. */
export interface LedgerRow {
  readonly ledger: string;
  readonly holder: string;
  /** The period in progress (UTC) and when it resets. */
  readonly period: string;
  readonly resetsAt: string;
  /** The ledger's limits now; null when the document in force has no such ledger any more. */
  readonly limit: { readonly calls?: number; readonly cost?: number } | null;
  /** What calls that ran spent, what open calls hold, and what is left (limit less both). */
  readonly spent: { readonly calls: number; readonly cost: number };
  readonly held: { readonly calls: number; readonly cost: number };
  readonly left: { readonly calls?: number; readonly cost?: number };
  /** Calls holding a reservation (decided, not settled yet). */
  readonly openCalls: readonly string[];
}

/**
 * The rows of every stored ledger (key `ledger.<id>.<holder>`) and of every ledger the document
 * names a fixed holder for (a team, a principal or tool without a glob) that has none stored yet.
 * A stored period that is over counts as nothing spent in the one in progress.
 */
export function ledgerRows(doc: PolicyDocument, stored: readonly { ledger: string; holder: string; state: LedgerState | undefined }[], nowMs: number): LedgerRow[] {
  const defined = new Map((doc.budgets.ledgers ?? []).map((l) => [l.id, l]));
  const rows: LedgerRow[] = [];
  const seen = new Set<string>();
  for (const s of stored) {
    seen.add(`${s.ledger}.${s.holder}`);
    rows.push(row(s.ledger, s.holder, defined.get(s.ledger), s.state, nowMs));
  }
  for (const l of defined.values()) {
    for (const holder of fixedHolders(l)) if (!seen.has(`${l.id}.${holder}`)) rows.push(row(l.id, holder, l, undefined, nowMs));
  }
  return rows.sort((a, b) => a.ledger.localeCompare(b.ledger) || a.holder.localeCompare(b.holder));
}

function fixedHolders(l: LedgerBudget): string[] {
  if (l.team !== undefined) return [l.team];
  if (l.principal !== undefined) return l.principal.filter((p) => !/[*?]/.test(p));
  return (l.tool ?? []).filter((t) => !/[*?]/.test(t)).map(toolHolder);
}

function row(ledger: string, holder: string, l: LedgerBudget | undefined, state: LedgerState | undefined, nowMs: number): LedgerRow {
  const p = l === undefined ? undefined : periodOf(l.period, nowMs);
  const current = state !== undefined && (p === undefined || state.period === p.id) ? state : undefined;
  const spent = current?.spent ?? { calls: 0, cost: 0 };
  const held = { calls: 0, cost: 0 };
  for (const h of current?.holds ?? []) {
    held.calls += h.calls;
    held.cost += h.cost;
  }
  const limit = l === undefined ? null : { ...(l.calls === undefined ? {} : { calls: l.calls }), ...(l.cost === undefined ? {} : { cost: l.cost }) };
  const left = {
    ...(limit?.calls === undefined ? {} : { calls: Math.max(0, limit.calls - spent.calls - held.calls) }),
    ...(limit?.cost === undefined ? {} : { cost: Math.max(0, limit.cost - spent.cost - held.cost) }),
  };
  return {
    ledger,
    holder,
    period: p?.id ?? state?.period ?? "-",
    resetsAt: p?.resetsAt ?? state?.resetsAt ?? "-",
    limit,
    spent,
    held,
    left,
    openCalls: (current?.holds ?? []).map((h) => h.callId),
  };
}

/** `warden budgets` for people. */
export function ledgersText(policyVersion: string, rows: readonly LedgerRow[]): string {
  if (rows.length === 0) return `no ledger budgets: the policy ${policyVersion} has no budgets.ledgers and none is stored`;
  const amount = (r: LedgerRow, k: "calls" | "cost") => {
    const limit = r.limit?.[k];
    if (r.limit !== null && limit === undefined) return "-";
    return `${r.spent[k]} spent + ${r.held[k]} held${limit === undefined ? "" : ` of ${limit}, ${r.left[k]} left`}`;
  };
  const table = renderTable(rows, [
    { title: "LEDGER", value: (r) => r.ledger },
    { title: "HOLDER", value: (r) => r.holder },
    { title: "PERIOD", value: (r) => r.period },
    { title: "CALLS", value: (r) => amount(r, "calls") },
    { title: "COST", value: (r) => amount(r, "cost") },
    { title: "RESETS", value: (r) => r.resetsAt },
  ]);
  const gone = rows.filter((r) => r.limit === null).map((r) => r.ledger);
  const note = gone.length === 0 ? [] : [`not in policy ${policyVersion} any more (nothing checks them): ${[...new Set(gone)].join(", ")}`];
  return [`ledger budgets of policy ${policyVersion}:`, table, ...note].join("\n");
}
