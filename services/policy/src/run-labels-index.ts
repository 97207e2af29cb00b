import { kvGetJson, readOutcome, type Bus, type KV } from "@warden/bus";
import { BUCKET_BUDGETS, runLabelsKey } from "@warden/contracts/subjects";
import { type RunLabelSource } from "@warden/contracts/policy";
import { sha256Hex } from "@warden/contracts/json";
import {
  recordRunLabels,
  runLabelsOf,
  RunLabelsStateSchema,
  settleRunLabels,
  withRunLabelOutcomes,
  type RunLabelEntry,
  type RunLabelSettlement,
  type RunLabelsState,
} from "@warden/policy-engine";

import { historySettlementOf } from "./domain/settlement.js";
import { compareAndSet } from "./kv-compare-and-set.js";

const MAX_ATTEMPTS = 100;

export interface RunLabelsIndex {
  /** The run's labels now: results finished ok (or of unknown outcome); an entry still held counts once the stream has its ok result. */
  read(run: string): Promise<Map<string, RunLabelSource>>;
  /** Keeps an admitted call whose result will carry labels (before its decision is written, so before it can run). */
  record(run: string, entry: Omit<RunLabelEntry, "state">): Promise<"recorded" | "full">;
  /** Settles the call's entry at its result. Settling twice changes nothing. */
  settle(run: string, callId: string, how: RunLabelSettlement): Promise<void>;
}

/**
 * The policy's run labels in `warden_budgets`, key `labels.<digest of the run id>`: the labelled
 * calls of one run (its delegation tree's top run), written only by the policy. A fold of the
 * stream, like the history index: an entry is added when a decision admits a call whose result
 * carries labels (its ToolPolicyChecked names them, `resultLabels`, `labelRun`) and settled by the
 * call's result.
 */
export async function openRunLabels(bus: Bus): Promise<RunLabelsIndex> {
  const kv: KV = await bus.kvm.open(BUCKET_BUDGETS);
  const keyOf = (run: string): string => runLabelsKey(sha256Hex(run).slice(0, 32));
  const read = async (key: string) => {
    const e = await kvGetJson(kv, key, RunLabelsStateSchema);
    return { state: e?.value, revision: e?.revision };
  };
  /** Retries a compare-and-set change until it lands or there is nothing to change. */
  const change = async (key: string, next: (s: RunLabelsState | undefined) => RunLabelsState | undefined | "full"): Promise<"done" | "full"> => {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const r = await read(key);
      const n = next(r.state);
      if (n === undefined) return "done";
      if (n === "full") return "full";
      if ((await compareAndSet(kv, key, n, r.revision)) !== undefined) return "done";
    }
    throw new Error(`run labels ${key} are contended after ${MAX_ATTEMPTS} attempts`);
  };
  return {
    async read(run) {
      const { state } = await read(keyOf(run));
      // settlement may trail the stream: the outcome of an entry still held is read where the executor wrote it
      const held = (state?.entries ?? []).filter((e) => e.state === "held");
      const outcomes = new Map<string, RunLabelSettlement>();
      await Promise.all(
        held.map(async (e) => {
          const o = await readOutcome(bus, e.domain, e.callId);
          if (o !== undefined) outcomes.set(e.callId, historySettlementOf(o));
        }),
      );
      return runLabelsOf(withRunLabelOutcomes(state, outcomes));
    },
    async record(run, entry) {
      const r = await change(keyOf(run), (s) => {
        const rec = recordRunLabels(s, entry);
        return rec.kind === "next" ? rec.next : rec.kind === "full" ? "full" : undefined;
      });
      return r === "full" ? "full" : "recorded";
    },
    async settle(run, callId, how) {
      await change(keyOf(run), (s) => settleRunLabels(s, callId, how));
    },
  };
}
