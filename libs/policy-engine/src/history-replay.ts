import { z } from "zod";
import { TokenSchema } from "@warden/contracts/subjects";
import { ActionTypeSchema, type ToolRecord } from "@warden/contracts/descriptor";
import { DataLabelSchema, MAX_RESULT_LABELS, type HistoryFinding, type PolicyDocument, type PolicyRule } from "@warden/contracts/policy";
import { JsonValueSchema } from "@warden/contracts/json";
import { versionsByName } from "./tool-versions.js";
import {
  evaluateHistory,
  historyProbesOf,
  recordIn,
  settleHistoryIn,
  type HistoryCall,
  type HistoryIndexState,
  type HistorySettlement,
} from "./history.js";

/**
 * One earlier call as a history file gives it (`policy decide --history`): a call the policy
 * admitted, with how it ended. `pending` is still in flight; `released` did not run or failed.
 */
export const HistoryRecordSchema = z.strictObject({
  callId: TokenSchema,
  tool: z.string().min(1).max(200),
  actionType: ActionTypeSchema.optional(),
  principal: TokenSchema,
  runId: TokenSchema,
  treeRoot: TokenSchema.optional(),
  args: JsonValueSchema.optional(),
  /** When it was admitted. */
  at: z.iso.datetime(),
  outcome: z.enum(["ok", "failed", "unknown", "pending"]).default("ok"),
  /** When it ended (its outcome's time); before then it counts as still in flight. Absent: ended before any call asked about. */
  endedAt: z.iso.datetime().optional(),
  /** The labels its result carried (docs/policy.md, Data labels). Absent: derived from its tool's descriptor. */
  labels: z.array(DataLabelSchema).max(MAX_RESULT_LABELS).optional(),
});
export type HistoryRecord = z.infer<typeof HistoryRecordSchema>;
export const HistoryRecordsSchema = z.array(HistoryRecordSchema).max(100_000);

const SETTLED: Record<HistoryRecord["outcome"], HistorySettlement | undefined> = { ok: "ok", failed: "released", unknown: "unknown", pending: undefined };

/**
 * The history findings for `call` from a list of earlier calls, by the same functions the policy
 * stage keeps its index with: each earlier call is recorded in the keys it belongs to at its time
 * and settled by its outcome, then the call's checked conditions are evaluated at `nowMs`. What
 * the stage decided from its index, this decides from the same calls: the index is a fold of them.
 */
export function replayHistory(
  doc: PolicyDocument,
  earlier: readonly HistoryRecord[],
  call: HistoryCall,
  matches: (rule: PolicyRule) => boolean,
  nowMs: number,
): HistoryFinding[] {
  const checked = historyProbesOf(doc, call, matches).filter((p) => p.check);
  if (checked.length === 0) return [];
  const keys = new Set(checked.map((p) => p.key));
  const states = new Map<string, HistoryIndexState>();
  for (const r of [...earlier].sort((a, b) => Date.parse(a.at) - Date.parse(b.at))) {
    const at = Date.parse(r.at);
    if (at > nowMs || r.callId === call.callId) continue;
    const as: HistoryCall = {
      callId: r.callId,
      tool: { name: r.tool, ...(r.actionType === undefined ? {} : { actionType: r.actionType }) },
      principal: r.principal,
      runId: r.runId,
      ...(r.treeRoot === undefined ? {} : { treeRoot: r.treeRoot }),
      args: r.args,
    };
    for (const p of historyProbesOf(doc, as, () => false)) {
      if (!p.record || !keys.has(p.key)) continue;
      const recorded = recordIn(states.get(p.key), p, r.callId, at);
      if (recorded.kind !== "next") continue;
      // an outcome written after the moment decided was not known then: the call was still in flight
      const how = r.endedAt !== undefined && Date.parse(r.endedAt) > nowMs ? undefined : SETTLED[r.outcome];
      states.set(p.key, how === undefined ? recorded.next : (settleHistoryIn(recorded.next, r.callId, how, at) ?? recorded.next));
    }
  }
  return checked.map((p) => evaluateHistory(p, states.get(p.key), nowMs, call.callId));
}

/** Each record's action type from the tools when the record does not carry one (a history file seldom does). */
export function withActionTypes(history: readonly HistoryRecord[], all: readonly ToolRecord[]): HistoryRecord[] {
  const byName = versionsByName(all);
  return history.map((r) => {
    if (r.actionType !== undefined) return r;
    const actionType = byName.get(r.tool)?.[0]?.descriptor.actionType;
    return actionType === undefined ? r : { ...r, actionType };
  });
}
