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
  type HistoryProbe,
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

/** A call admitted into its keys, or its ending written: the two things the policy stage's index folds. */
interface IndexStep {
  readonly atMs: number;
  readonly record: HistoryRecord;
  /** Undefined: admitted; else how it ended. */
  readonly settle?: HistorySettlement;
}

/**
 * The policy stage's history index rebuilt from a list of earlier calls, by the functions the
 * stage keeps it with: each call is recorded in the keys it belongs to when it was admitted, and
 * settled by its outcome when that was written (a call with no `endedAt` ended before any call
 * asked about; one `pending` never did). Asked about calls in time order (what-if's decisions),
 * the fold only moves forward: each step is folded once, so replaying N decisions costs N steps,
 * not N times the history. Asked about an earlier moment, it folds again from the start.
 */
export class HistoryReplay {
  private readonly steps: readonly IndexStep[];
  /** The keys each earlier call is recorded in (they depend on the document and the call only). */
  private readonly recordProbes = new Map<HistoryRecord, HistoryProbe[]>();
  private states = new Map<string, HistoryIndexState>();
  private folded = 0;
  private foldedToMs = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly doc: PolicyDocument,
    earlier: readonly HistoryRecord[],
  ) {
    const steps: IndexStep[] = [];
    for (const record of earlier) {
      const atMs = Date.parse(record.at);
      steps.push({ atMs, record });
      const how = SETTLED[record.outcome];
      if (how !== undefined) steps.push({ atMs: record.endedAt === undefined ? atMs : Math.max(atMs, Date.parse(record.endedAt)), record, settle: how });
    }
    // stable: at one moment, calls in the order given, each admitted before it is settled
    this.steps = steps.map((step, i) => ({ step, i })).sort((x, y) => x.step.atMs - y.step.atMs || x.i - y.i).map((x) => x.step);
  }

  /**
   * The history findings for `call` at `nowMs`: its checked conditions evaluated over the calls
   * admitted up to then, each counted as in flight until its ending was written.
   */
  findings(call: HistoryCall, matches: (rule: PolicyRule) => boolean, nowMs: number): HistoryFinding[] {
    const checked = historyProbesOf(this.doc, call, matches).filter((p) => p.check);
    if (checked.length === 0) return [];
    this.foldTo(nowMs);
    return checked.map((p) => evaluateHistory(p, this.states.get(p.key), nowMs, call.callId));
  }

  private foldTo(nowMs: number): void {
    if (nowMs < this.foldedToMs) {
      this.states = new Map();
      this.folded = 0;
    }
    this.foldedToMs = nowMs;
    for (; this.folded < this.steps.length && this.steps[this.folded]!.atMs <= nowMs; this.folded++) {
      const step = this.steps[this.folded]!;
      for (const p of this.probesOf(step.record)) {
        const state = this.states.get(p.key);
        if (step.settle === undefined) {
          const recorded = recordIn(state, p, step.record.callId, step.atMs);
          if (recorded.kind === "next") this.states.set(p.key, recorded.next);
        } else {
          const settled = settleHistoryIn(state, step.record.callId, step.settle, step.atMs);
          if (settled !== undefined) this.states.set(p.key, settled);
        }
      }
    }
  }

  private probesOf(r: HistoryRecord): HistoryProbe[] {
    let probes = this.recordProbes.get(r);
    if (probes === undefined) {
      const as: HistoryCall = {
        callId: r.callId,
        tool: { name: r.tool, ...(r.actionType === undefined ? {} : { actionType: r.actionType }) },
        principal: r.principal,
        runId: r.runId,
        ...(r.treeRoot === undefined ? {} : { treeRoot: r.treeRoot }),
        args: r.args,
      };
      probes = historyProbesOf(this.doc, as, () => false).filter((p) => p.record);
      this.recordProbes.set(r, probes);
    }
    return probes;
  }
}

/**
 * The history findings for one call from a list of earlier calls (`policy decide --history`):
 * {@link HistoryReplay} asked once. What the stage decided from its index, this decides from
 * the same calls: the index is a fold of them.
 */
export function replayHistory(doc: PolicyDocument, earlier: readonly HistoryRecord[], call: HistoryCall, matches: (rule: PolicyRule) => boolean, nowMs: number): HistoryFinding[] {
  return new HistoryReplay(doc, earlier).findings(call, matches, nowMs);
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
