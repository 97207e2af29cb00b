import { kvCreateJson, kvGetJson, kvUpdateJson, type Bus } from "@warden/bus";
import { BUCKET_BUDGETS, delegationBudgetKey } from "@warden/contracts/subjects";
import { countStep, DelegationCountSchema } from "./domain/delegation-count.js";
import type { KV } from "@warden/bus";

const MAX_CAS_ATTEMPTS = 50;

export interface DelegationCounter {
  /** Counts a child call against a subagent call (once) and returns how many it has made with it. */
  count(parentCallId: string, callId: string, max: number): Promise<number>;
}

export async function openDelegationCounter(bus: Bus): Promise<DelegationCounter> {
  const kv: KV = await bus.kvm.open(BUCKET_BUDGETS);
  return {
    async count(parentCallId, callId, max) {
      const key = delegationBudgetKey(parentCallId);
      for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
        const current = await kvGetJson(kv, key, DelegationCountSchema);
        const step = countStep(current?.value, callId, max);
        if (step.kind === "counted") return step.calls;
        // compare-and-set: a sibling call counted at the same time makes us read again
        const written = current === undefined ? await kvCreateJson(kv, key, step.next) : await kvUpdateJson(kv, key, step.next, current.revision);
        if (written) return step.calls;
      }
      throw new Error(`delegation count of ${parentCallId} is contended or unreadable after ${MAX_CAS_ATTEMPTS} attempts`);
    },
  };
}
