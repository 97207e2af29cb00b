import { z } from "zod";
import { historyIndexKey, TokenSchema } from "@warden/contracts/subjects";
import { type ToolDescriptor } from "@warden/contracts/descriptor";
import {
  MAX_HISTORY_ENTRIES,
  MAX_HISTORY_MATCHED_IDS,
  windowSeconds,
  type HistoryCalls,
  type HistoryCondition,
  type HistoryFinding,
  type HistoryScope,
  type PolicyDocument,
  type PolicyRule,
} from "@warden/contracts/policy";
import { canonicalJson, sha256Hex, type JsonValue } from "@warden/contracts/json";
import { anyGlob } from "./glob.js";
import { checkCondition } from "./quorum-condition.js";

/** The rule id of a call refused because a history index key it must be recorded in is full. */
export const HISTORY_FULL_RULE = "history.index_full";

/** How an earlier call stands in the index: admitted and not ended, finished ok, or of unknown outcome (it may have run). */
export const HISTORY_ENTRY_STATES = ["held", "ok", "unknown"] as const;
export type HistoryEntryState = (typeof HISTORY_ENTRY_STATES)[number];

export const HistoryEntrySchema = z.object({
  callId: TokenSchema,
  /** When the call was admitted (ms since the epoch): the window counts from here. */
  at: z.int().nonnegative(),
  state: z.enum(HISTORY_ENTRY_STATES),
  /** The call's domain, so a decision can read the outcome of a call still held from the stream. */
  domain: TokenSchema.optional(),
  /** A sum condition's arg, as the call gave it. */
  amount: z.number().optional(),
});
export type HistoryEntry = z.infer<typeof HistoryEntrySchema>;

/**
 * One index key as stored (`warden_budgets`, `history.<digest>`): the earlier calls of one
 * condition, scope holder and correlated values, newest last. Calls released (not run, failed) are
 * removed; calls older than the window are pruned on every write.
 */
export const HistoryIndexStateSchema = z.object({
  ruleId: z.string().min(1).max(80),
  windowMs: z.int().positive(),
  entries: z.array(HistoryEntrySchema).max(MAX_HISTORY_ENTRIES),
});
export type HistoryIndexState = z.infer<typeof HistoryIndexStateSchema>;

/** What a history condition needs to know of a call, current or earlier. */
export interface HistoryCall {
  readonly callId: string;
  /** Its domain (where its outcome is written); kept on its entries. */
  readonly domain?: string;
  readonly tool: Pick<ToolDescriptor, "name" | "actionType">;
  readonly principal: string;
  /** The run (correlationId). */
  readonly runId: string;
  /** The top call of its delegation chain, or its own id when it has no parent; undefined when not known. */
  readonly treeRoot?: string;
  readonly args: JsonValue | undefined;
}

/**
 * One history condition as it concerns one call: the key its earlier calls are kept under, whether
 * the call's rule matches it (`check`: the condition is evaluated) and whether the call is itself
 * one of `calls` (`record`: it is added to the key when admitted).
 */
export interface HistoryProbe {
  readonly ruleId: string;
  readonly condition: HistoryCondition;
  readonly key: string;
  readonly holder: string;
  readonly check: boolean;
  readonly record: boolean;
  /** For a sum: the call's own amount (undefined when its arg is not a non-negative number). */
  readonly amount?: number;
  readonly domain?: string;
  /**
   * The rule is a shadow rule: it decides nothing, so a key of it that is full never refuses the
   * call (the call is then not recorded in it; its finding holds, as the limit could not count it).
   */
  readonly shadow?: boolean;
}

/** A condition's window in ms (the schema has checked the form and the cap). */
export function windowMsOf(c: Pick<HistoryCondition, "within">): number {
  return (windowSeconds(c.within) ?? 0) * 1000;
}

/** The rules of a document that carry a history condition (none in most documents: a cheap check first). */
export function historyRules(doc: PolicyDocument): readonly (PolicyRule & { when: { history: HistoryCondition } })[] {
  const cached = rulesCache.get(doc);
  if (cached !== undefined) return cached;
  const out = doc.rules.filter((r): r is PolicyRule & { when: { history: HistoryCondition } } => r.when?.history !== undefined);
  rulesCache.set(doc, out);
  return out;
}
const rulesCache = new WeakMap<PolicyDocument, readonly (PolicyRule & { when: { history: HistoryCondition } })[]>();

/** Whether the document needs a call's delegation tree (some condition is scoped `tree`). */
export function needsTreeRoot(doc: PolicyDocument): boolean {
  return historyRules(doc).some((r) => r.when.history.scope === "tree");
}

/** Whether a call is one of a condition's `calls` (outcome aside: that is read from the index). */
export function isCounted(calls: HistoryCalls, call: Pick<HistoryCall, "tool" | "args">): boolean {
  return (
    anyGlob(calls.tool, call.tool.name) &&
    (calls.actionType === undefined || (call.tool.actionType !== undefined && calls.actionType.includes(call.tool.actionType))) &&
    (calls.args ?? []).every((c) => checkCondition(c, call.args).holds)
  );
}

function holderOf(scope: HistoryScope, call: HistoryCall): string | undefined {
  return scope === "run" ? call.runId : scope === "principal" ? call.principal : call.treeRoot;
}

function argOf(args: JsonValue | undefined, name: string): JsonValue | undefined {
  if (args === null || typeof args !== "object" || Array.isArray(args)) return undefined;
  return Object.hasOwn(args, name) ? args[name] : undefined;
}

/** A sum's amount: a finite, non-negative number, else undefined (a call without one is refused by its limit). */
function amountOf(c: HistoryCondition, args: JsonValue | undefined): number | undefined {
  if (c.sum === undefined) return undefined;
  const v = argOf(args, c.sum.arg);
  return typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : undefined;
}

/**
 * The index key of a condition for one holder and the values of its `same` args: a digest of the
 * rule, the condition's selection and the values, so a changed condition starts afresh and the
 * args themselves are not written in the key.
 */
export function historyKeyOf(ruleId: string, c: HistoryCondition, holder: string, args: JsonValue | undefined): string {
  const same = (c.same ?? []).map((a) => argOf(args, a) ?? null);
  const what = [ruleId, c.scope, c.calls, c.same ?? [], c.sum?.arg ?? null, holder, same];
  return historyIndexKey(sha256Hex(canonicalJson(what)).slice(0, 32));
}

/**
 * The history conditions that concern a call: each rule whose static match (`matches`) holds is
 * checked, and each condition whose `calls` the call is one of records it. A condition scoped
 * `tree` is skipped when the call's tree is not known.
 */
export function historyProbesOf(doc: PolicyDocument, call: HistoryCall, matches: (rule: PolicyRule) => boolean): HistoryProbe[] {
  const out: HistoryProbe[] = [];
  for (const r of historyRules(doc)) {
    const c = r.when.history;
    const check = matches(r);
    const record = isCounted(c.calls, call);
    if (!check && !record) continue;
    const holder = holderOf(c.scope, call);
    if (holder === undefined) continue;
    const amount = amountOf(c, call.args);
    out.push({
      ruleId: r.id,
      condition: c,
      key: historyKeyOf(r.id, c, holder, call.args),
      holder,
      check,
      record,
      ...(amount === undefined ? {} : { amount }),
      ...(call.domain === undefined ? {} : { domain: call.domain }),
      ...(r.mode === "shadow" ? { shadow: true } : {}),
    });
  }
  return out;
}

/** The entries a condition sees now: inside its window, the current call's own left out. */
function visible(state: HistoryIndexState | undefined, c: HistoryCondition, nowMs: number, callId: string): HistoryEntry[] {
  if (state === undefined) return [];
  const since = nowMs - windowMsOf(c);
  return state.entries.filter((e) => e.at > since && e.callId !== callId);
}

/**
 * Evaluates a checked probe against its key: `exists` / `absent` over the earlier calls (those
 * finished ok only, with `outcome: ok`); `count` / `sum` hold when the earlier calls in flight or
 * done, plus this call when it counts, pass the limit. A sum over a call whose own amount is not
 * a non-negative number holds (its limit refuses what it cannot add up), as does a limit whose key
 * cannot take this call.
 */
export function evaluateHistory(probe: HistoryProbe, state: HistoryIndexState | undefined, nowMs: number, callId: string): HistoryFinding {
  const c = probe.condition;
  let seen = visible(state, c, nowMs, callId);
  if (c.calls.outcome === "ok") seen = seen.filter((e) => e.state === "ok");
  const base = { ruleId: probe.ruleId, scope: c.scope, holder: probe.holder, matched: seen.slice(-MAX_HISTORY_MATCHED_IDS).map((e) => e.callId), count: seen.length };
  if (c.exists !== undefined) return { ...base, holds: seen.length > 0 };
  if (c.absent !== undefined) return { ...base, holds: seen.length === 0 };
  const full = probe.record && seen.length >= MAX_HISTORY_ENTRIES;
  if (c.count !== undefined) return { ...base, holds: full || seen.length + (probe.record ? 1 : 0) > c.count.max };
  const sum = seen.reduce((t, e) => t + (e.amount ?? 0), 0);
  const own = probe.record ? probe.amount : 0;
  const max = c.sum?.max ?? 0;
  return { ...base, sum, ...(own === undefined ? {} : { own }), holds: full || own === undefined || sum + own > max };
}

export type HistoryRecorded =
  | { readonly kind: "next"; readonly next: HistoryIndexState }
  /** The call is in the key already (a redelivery, or an earlier attempt of this decision). */
  | { readonly kind: "already" }
  /** The key holds MAX_HISTORY_ENTRIES calls inside the window that a limit must keep. */
  | { readonly kind: "full" };

/**
 * Adds an admitted call to a key, as `held`, pruning what the window no longer sees. A key of
 * `exists` / `absent` that is full drops its oldest settled calls (the newest ok call of a window
 * outlives the older ones, so the answer does not change); a key of a limit never drops a call
 * it counts.
 */
export function recordIn(state: HistoryIndexState | undefined, probe: HistoryProbe, callId: string, nowMs: number): HistoryRecorded {
  const c = probe.condition;
  const windowMs = windowMsOf(c);
  const entries = (state?.entries ?? []).filter((e) => e.at > nowMs - windowMs);
  if (entries.some((e) => e.callId === callId)) return { kind: "already" };
  const limit = c.count !== undefined || c.sum !== undefined;
  while (entries.length >= MAX_HISTORY_ENTRIES) {
    const oldest = entries.findIndex((e) => e.state !== "held");
    if (limit || oldest < 0) return { kind: "full" };
    entries.splice(oldest, 1);
  }
  const entry: HistoryEntry = { callId, at: nowMs, state: "held", ...(probe.domain === undefined ? {} : { domain: probe.domain }), ...(probe.amount === undefined ? {} : { amount: probe.amount }) };
  return { kind: "next", next: { ruleId: probe.ruleId, windowMs, entries: [...entries, entry] } };
}

/** How a call's entry ends: finished ok, of unknown outcome (it stays counted), or released (did not run, failed: removed). */
export type HistorySettlement = "ok" | "unknown" | "released";

/** Settles a call's entry in a key; undefined when there is nothing to change. */
export function settleHistoryIn(state: HistoryIndexState | undefined, callId: string, how: HistorySettlement, nowMs: number): HistoryIndexState | undefined {
  if (state === undefined) return undefined;
  const i = state.entries.findIndex((e) => e.callId === callId);
  if (i < 0) return undefined;
  const entry = state.entries[i]!;
  if (how !== "released" && entry.state === how) return undefined;
  const kept = state.entries.filter((e, j) => j !== i && e.at > nowMs - state.windowMs);
  if (how === "released") return { ...state, entries: kept };
  const settled = [...state.entries];
  settled[i] = { ...entry, state: how };
  return { ...state, entries: settled.filter((e) => e.at > nowMs - state.windowMs || e.callId === callId) };
}

/**
 * The held entries an `outcome: ok` condition would look at: calls whose result may already be on
 * the stream while the settlement that marks their entry has not run yet.
 */
export function pendingOutcomes(probe: HistoryProbe, state: HistoryIndexState | undefined, nowMs: number, callId: string): HistoryEntry[] {
  if (!probe.check || probe.condition.calls.outcome !== "ok") return [];
  return visible(state, probe.condition, nowMs, callId).filter((e) => e.state === "held" && e.domain !== undefined);
}

/**
 * The entries still held (in flight) that a count or sum limit counts: a call cancelled before it
 * started never ran, and nothing else settles it (its cancel is no result), so the stage looks
 * them up on the stream before the limit refuses a call. None for any other condition.
 */
export function heldAgainstLimit(probe: HistoryProbe, state: HistoryIndexState | undefined, nowMs: number, callId: string): HistoryEntry[] {
  const c = probe.condition;
  if (!probe.check || (c.count === undefined && c.sum === undefined)) return [];
  return visible(state, c, nowMs, callId).filter((e) => e.state === "held" && e.domain !== undefined);
}

/** The state as the stream has it: held entries whose outcome was read settled as it says (in memory; the settlement writes it). */
export function withOutcomes(state: HistoryIndexState | undefined, outcomes: ReadonlyMap<string, HistorySettlement>, nowMs: number): HistoryIndexState | undefined {
  let out = state;
  for (const [callId, how] of outcomes) out = settleHistoryIn(out, callId, how, nowMs) ?? out;
  return out;
}

/** The findings by rule id, as `CallFacts.history` takes them. */
export function findingsByRule(findings: readonly HistoryFinding[]): ReadonlyMap<string, HistoryFinding> {
  return new Map(findings.map((f) => [f.ruleId, f]));
}
