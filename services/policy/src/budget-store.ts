import { kvCreateJson, kvGetJson, kvUpdateJson, type Bus } from "@warden/bus";
import { BUCKET_BUDGETS, runBudgetKey } from "@warden/contracts";
import { budgetStep, BudgetRecordSchema, type BudgetStep } from "./domain/budget.js";
import type { KV } from "./kv.js";

const MAX_CAS_ATTEMPTS = 50;

export interface BudgetStore {
  /** Counts a call against its run (once, however often it is asked) and says whether it fits. */
  count(runId: string, callId: string, max: number): Promise<BudgetStep>;
}

export async function openBudgetStore(bus: Bus): Promise<BudgetStore> {
  const kv: KV = await bus.kvm.open(BUCKET_BUDGETS);
  return {
    async count(runId, callId, max) {
      const key = runBudgetKey(runId);
      for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
        const current = await kvGetJson(kv, key, BudgetRecordSchema);
        const step = budgetStep(current?.value, callId, max);
        if (step.kind !== "count") return step;
        // compare-and-set: a concurrent call of the same run makes us read again
        const written =
          current === undefined ? await kvCreateJson(kv, key, step.next) : await kvUpdateJson(kv, key, step.next, current.revision);
        if (written) return step;
      }
      throw new Error(`budget of run ${runId} is contended or unreadable after ${MAX_CAS_ATTEMPTS} attempts`);
    },
  };
}
