import { kvGetJson, type Bus } from "@warden/bus";
import { BUCKET_BUDGETS, runBudgetKey } from "@warden/contracts/subjects";
import { BudgetModelSchema } from "@warden/contracts/read-models";
import { callsUsed, unprojected, type ProjectedRun } from "./domain/budget.js";
import type { KV } from "@warden/bus";
import { createTurns } from "@warden/service-kit";

/** What a budgeted decision reports back: the value, and the call it admitted if it counts. */
export interface Counted<T> {
  readonly value: T;
  readonly admitted?: { readonly callId: string; readonly seq: number };
}

export interface BudgetGuard {
  /**
   * Runs `decide` with the number of calls its run has used, one decision of a run at a time in
   * this process. Used = the projected run budget (`warden_budgets`, `run.<runId>`) plus this
   * process's admitting decisions the projector has not applied yet.
   */
  withRun<T>(runId: string, decide: (used: number) => Promise<Counted<T>>): Promise<T>;
  used(runId: string): Promise<number>;
  stop(): void;
}

/** Own decisions are forgotten after this long even if never projected (the projector is down). */
const DEFAULT_KEEP_MS = 10 * 60_000;

export async function openBudgetGuard(bus: Bus, opts: { keepMs?: number } = {}): Promise<BudgetGuard> {
  const kv: KV = await bus.kvm.open(BUCKET_BUDGETS);
  const keepMs = opts.keepMs ?? DEFAULT_KEEP_MS;
  const own = new Map<string, { decisions: Map<string, number>; touchedAt: number }>();
  const turns = createTurns();

  const projected = async (runId: string): Promise<ProjectedRun | undefined> => {
    const m = (await kvGetJson(kv, runBudgetKey(runId), BudgetModelSchema))?.value;
    return m === undefined ? undefined : { admitted: m.counts.admitted, seq: m.seq };
  };
  const used = async (runId: string) => {
    const p = await projected(runId);
    const mine = own.get(runId);
    if (mine === undefined) return p?.admitted ?? 0;
    mine.decisions = unprojected(p, mine.decisions);
    if (mine.decisions.size === 0) own.delete(runId);
    return callsUsed(p, mine.decisions);
  };
  const sweep = setInterval(() => {
    const cutoff = Date.now() - keepMs;
    for (const [runId, r] of own) if (r.touchedAt < cutoff) own.delete(runId);
  }, Math.min(keepMs, 60_000));
  sweep.unref();

  return {
    async withRun(runId, decide) {
      return turns.run(runId, async () => {
        const r = await decide(await used(runId));
        if (r.admitted !== undefined) {
          const mine = own.get(runId) ?? { decisions: new Map<string, number>(), touchedAt: 0 };
          mine.decisions.set(r.admitted.callId, r.admitted.seq);
          mine.touchedAt = Date.now();
          own.set(runId, mine);
        }
        return r.value;
      });
    },
    used,
    stop: () => clearInterval(sweep),
  };
}
