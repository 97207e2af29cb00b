import { kvGetJson, readOutcome, type Bus, type KV } from "@warden/bus";
import { BUCKET_BUDGETS } from "@warden/contracts/subjects";
import { cancelledAmong } from "./cancelled-calls.js";
import { type Decision, type HistoryFinding, type HistoryHold } from "@warden/contracts/policy";
import {
  evaluateHistory,
  heldAgainstLimit,
  HistoryIndexStateSchema,
  pendingOutcomes,
  withOutcomes,
  recordIn,
  settleHistoryIn,
  type HistoryIndexState,
  type HistoryProbe,
  type HistorySettlement,
} from "@warden/policy-engine";

import { historySettlementOf } from "./domain/settlement.js";
import { compareAndSet } from "./kv-compare-and-set.js";

const MAX_ATTEMPTS = 100;

export interface HistoryDecided<T> {
  readonly value: T;
  /** The checked conditions as the decision saw them, for ToolPolicyChecked `history`. */
  readonly findings: readonly HistoryFinding[];
  /** The keys the admitted call was recorded in, for ToolPolicyChecked `historyHolds`. */
  readonly holds: readonly HistoryHold[];
  /** Set when a key of an enforced rule the call must be recorded in is full (the call is refused); a shadow rule's full key is skipped. */
  readonly full?: HistoryProbe;
}

export interface HistoryIndex {
  /**
   * Decides a call with the index: reads every key its probes name, runs `decide` with the
   * findings, and, unless it denies, records the call in every key it belongs to, each a
   * compare-and-set against the revision the findings were read at. When another decision wrote
   * one of them meanwhile, what this one recorded is taken back, the keys are read again and the
   * call is decided again: so a limit's check and the reservation that keeps it are one step, and
   * no number of policy copies can admit past it. Recording twice (a redelivery) changes nothing.
   */
  decide<T extends { readonly decision: Decision }>(callId: string, probes: readonly HistoryProbe[], nowMs: number, decide: (findings: readonly HistoryFinding[]) => Promise<T>): Promise<HistoryDecided<T>>;
  /** Settles a call's entries at its result (finished ok, unknown, or released: removed). Settling twice changes nothing. */
  settle(callId: string, holds: readonly HistoryHold[], how: HistorySettlement): Promise<void>;
}

interface Read {
  readonly state: HistoryIndexState | undefined;
  readonly revision: number | undefined;
}

/**
 * The policy's history index in `warden_budgets`, keys `history.<digest>` (one per condition,
 * scope holder and correlated values), shared by every policy copy like the ledgers. It is a fold
 * of the stream: an entry is added when a decision admits the call (and names the key on its
 * ToolPolicyChecked) and settled by the call's result, so replaying the decisions and results
 * rebuilds it (`replayHistory` of @warden/policy-engine is the same fold over a list of calls).
 */
export async function openHistoryIndex(bus: Bus): Promise<HistoryIndex> {
  const kv: KV = await bus.kvm.open(BUCKET_BUDGETS);
  const read = async (key: string): Promise<Read> => {
    const e = await kvGetJson(kv, key, HistoryIndexStateSchema);
    return { state: e?.value, revision: e?.revision };
  };

  const settleOne = async (key: string, callId: string, how: HistorySettlement): Promise<void> => {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const r = await read(key);
      const next = settleHistoryIn(r.state, callId, how, Date.now());
      if (next === undefined) return;
      if ((await compareAndSet(kv, key, next, r.revision)) !== undefined) return;
    }
    throw new Error(`history index ${key} is contended after ${MAX_ATTEMPTS} attempts`);
  };
  const settle: HistoryIndex["settle"] = async (callId, holds, how) => {
    for (const h of holds) await settleOne(h.key, callId, how);
  };

  /**
   * An `outcome: ok` condition must not depend on how far the settlement has got: the outcome of an
   * entry still held is read from the stream, the truth the settlement follows.
   */
  const asStreamHasIt = async (p: HistoryProbe, state: HistoryIndexState | undefined): Promise<HistoryIndexState | undefined> => {
    const pending = pendingOutcomes(p, state, Date.now(), "");
    if (pending.length === 0) return state;
    const outcomes = new Map<string, HistorySettlement>();
    await Promise.all(
      pending.map(async (e) => {
        const o = await readOutcome(bus, e.domain!, e.callId);
        if (o !== undefined) outcomes.set(e.callId, historySettlementOf(o));
      }),
    );
    return withOutcomes(state, outcomes, Date.now());
  };

  /**
   * A limit that would refuse the call counts the calls in flight: one cancelled before it started
   * never ran, and no result will settle it, so before refusing the stage reads the claim slot of
   * each held entry (only then: nothing is read while the limit has room) and releases the
   * cancelled ones, in the key too.
   */
  const findingOf = async (p: HistoryProbe, stored: HistoryIndexState | undefined, nowMs: number, callId: string): Promise<HistoryFinding> => {
    const state = await asStreamHasIt(p, stored);
    const finding = evaluateHistory(p, state, nowMs, callId);
    if (!finding.holds) return finding;
    const released = await releaseCancelled(p, state, nowMs, callId);
    return released === state ? finding : evaluateHistory(p, released, nowMs, callId);
  };

  const releaseCancelled = async (p: HistoryProbe, state: HistoryIndexState | undefined, nowMs: number, callId: string): Promise<HistoryIndexState | undefined> => {
    const held = heldAgainstLimit(p, state, nowMs, callId);
    if (held.length === 0) return state;
    const cancelled = await cancelledAmong(bus, held);
    if (cancelled.length === 0) return state;
    for (const id of cancelled) await settleOne(p.key, id, "released");
    return withOutcomes(state, new Map(cancelled.map((id) => [id, "released"] as const)), Date.now());
  };

  return {
    async decide(callId, probes, nowMs, decide) {
      const keys = [...new Set(probes.map((p) => p.key))];
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        const reads = new Map(await Promise.all(keys.map(async (k) => [k, await read(k)] as const)));
        const findings = await Promise.all(probes.filter((p) => p.check).map((p) => findingOf(p, reads.get(p.key)?.state, nowMs, callId)));
        const value = await decide(findings);
        if (value.decision === "deny") return { value, findings, holds: [] };
        const holds: HistoryHold[] = [];
        let conflict = false;
        for (const p of probes.filter((x) => x.record)) {
          const r = reads.get(p.key)!;
          const recorded = recordIn(r.state, p, callId, nowMs);
          // a shadow rule decides nothing: its full key leaves the call out rather than refuse it
          if (recorded.kind === "full" && p.shadow === true) continue;
          if (recorded.kind === "full") {
            await settle(callId, holds, "released");
            return { value, findings, holds: [], full: p };
          }
          if (recorded.kind === "next" && (await compareAndSet(kv, p.key, recorded.next, r.revision)) === undefined) {
            conflict = true;
            break;
          }
          holds.push({ key: p.key, ruleId: p.ruleId });
        }
        if (!conflict) return { value, findings, holds };
        // another decision wrote a key between our read and our write: take ours back and decide again
        await settle(callId, holds, "released");
      }
      throw new Error(`history index keys ${keys.join(", ")} are contended after ${MAX_ATTEMPTS} attempts`);
    },
    settle,
  };
}
