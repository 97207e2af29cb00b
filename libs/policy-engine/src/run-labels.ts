import { z } from "zod";
import { TokenSchema, ToolNameSchema } from "@warden/contracts/subjects";
import { levelOf, type ToolDescriptor } from "@warden/contracts/descriptor";
import { DataLabelSchema, DATA_LABELS, MAX_RESULT_LABELS, type PolicyRule, type RunLabelSource } from "@warden/contracts/policy";

/** The built-in rule: a send or an L4+ write in a run that has read untrusted content waits for a person. */
export const UNTRUSTED_RULE = "labels.untrusted";
/** The rule id of a call refused because its run's label key holds all the calls in flight it may keep. */
export const RUN_LABELS_FULL_RULE = "labels.index_full";
/** Most entries one run's key holds. */
export const MAX_RUN_LABEL_ENTRIES = 256;

export const RunLabelEntrySchema = z.object({
  callId: TokenSchema,
  tool: ToolNameSchema,
  /** Where its outcome is written, so a decision can read the outcome of an entry still held. */
  domain: TokenSchema,
  labels: z.array(DataLabelSchema).min(1).max(MAX_RESULT_LABELS),
  /** held: admitted, no result yet; ok: finished ok; unknown: it may have run (counted, as ok). */
  state: z.enum(["held", "ok", "unknown"]),
});
export type RunLabelEntry = z.infer<typeof RunLabelEntrySchema>;

/** One run's key as stored (`warden_budgets`, `labels.<digest>`): its labelled calls, oldest first. */
export const RunLabelsStateSchema = z.object({
  entries: z.array(RunLabelEntrySchema).max(MAX_RUN_LABEL_ENTRIES),
});
export type RunLabelsState = z.infer<typeof RunLabelsStateSchema>;

export type RunLabelSettlement = "ok" | "unknown" | "released";

const counts = (e: RunLabelEntry): boolean => e.state !== "held";

/** The run's labels, each from the earliest result that carried it (entries held are not results yet). */
export function runLabelsOf(state: RunLabelsState | undefined): Map<string, RunLabelSource> {
  const out = new Map<string, RunLabelSource>();
  for (const e of state?.entries ?? []) {
    if (!counts(e)) continue;
    for (const label of e.labels) if (!out.has(label)) out.set(label, { label, callId: e.callId, tool: e.tool });
  }
  return out;
}

export type RunLabelsRecorded =
  | { readonly kind: "next"; readonly next: RunLabelsState }
  /** Recorded already (a redelivery), or every label it carries is the run's already: nothing to keep. */
  | { readonly kind: "already" }
  /** MAX_RUN_LABEL_ENTRIES calls are held: the call cannot be kept, so it is refused. */
  | { readonly kind: "full" };

/**
 * Adds an admitted call whose result will carry labels, as `held`. A label never leaves a run, so a
 * call that brings nothing new is not kept, and a full key first drops settled entries whose labels
 * an earlier settled entry also brought.
 */
export function recordRunLabels(state: RunLabelsState | undefined, entry: Omit<RunLabelEntry, "state">): RunLabelsRecorded {
  const entries = [...(state?.entries ?? [])];
  if (entries.some((e) => e.callId === entry.callId)) return { kind: "already" };
  const have = runLabelsOf(state);
  if (entry.labels.every((l) => have.has(l))) return { kind: "already" };
  if (entries.length >= MAX_RUN_LABEL_ENTRIES) {
    const sources = new Set([...have.values()].map((s) => s.callId));
    const kept = entries.filter((e) => !counts(e) || sources.has(e.callId));
    if (kept.length >= MAX_RUN_LABEL_ENTRIES) return { kind: "full" };
    entries.splice(0, entries.length, ...kept);
  }
  return { kind: "next", next: { entries: [...entries, { ...entry, state: "held" }] } };
}

/** Settles a call's entry at its result; undefined when there is nothing to change. */
export function settleRunLabels(state: RunLabelsState | undefined, callId: string, how: RunLabelSettlement): RunLabelsState | undefined {
  const i = state?.entries.findIndex((e) => e.callId === callId) ?? -1;
  if (state === undefined || i < 0) return undefined;
  if (how === "released") return { entries: state.entries.filter((_, j) => j !== i) };
  if (state.entries[i]!.state === how) return undefined;
  return { entries: state.entries.map((e, j) => (j === i ? { ...e, state: how } : e)) };
}

/** The state as the stream has it: held entries whose outcome was read, settled in memory. */
export function withRunLabelOutcomes(state: RunLabelsState | undefined, outcomes: ReadonlyMap<string, RunLabelSettlement>): RunLabelsState | undefined {
  let out = state;
  for (const [callId, how] of outcomes) out = settleRunLabels(out, callId, how) ?? out;
  return out;
}

/** Whether the built-in untrusted rule concerns a call: a send, or a write at L4 or above. */
export function guardedByUntrusted(tool: ToolDescriptor): boolean {
  const level = levelOf(tool);
  return tool.grade === "send" || (tool.grade === "write" && (level === "L4" || level === "L5"));
}

/** Whether the document has rules on run labels (then every call reads its run's labels). */
export function hasRunLabelRules(rules: readonly PolicyRule[]): boolean {
  return rules.some((r) => r.when?.runLabels !== undefined);
}

/** The label the built-in rule looks for. */
export const UNTRUSTED = DATA_LABELS.untrusted;
