import { describe, expect, it } from "vitest";
import { kvPutJson } from "@warden/bus";
import { newId } from "@warden/contracts/events";
import { BUCKET_BUDGETS, runBudgetKey } from "@warden/contracts/subjects";
import { type BudgetModel } from "@warden/contracts/read-models";
import { useTestNats } from "@warden/testing";
import { openBudgetGuard } from "./budget-guard.js";

const projected = (runId: string, admitted: number, seq: number): BudgetModel => ({
  kind: "run",
  name: runId,
  counts: { requested: admitted, admitted, started: 0, succeeded: 0, failed: 0, rejected: 0, denied: 0, expired: 0, outcome_unknown: 0 },
  seq,
});

describe("the run budget guard", () => {
  const t = useTestNats();

  it("counts the projected calls plus its own decisions the projector has not applied, each once", async () => {
    const guard = await openBudgetGuard(t.bus);
    const kv = await t.bus.kvm.open(BUCKET_BUDGETS);
    const runId = newId();
    try {
      expect(await guard.used(runId)).toBe(0);
      await kvPutJson(kv, runBudgetKey(runId), projected(runId, 2, 10));
      expect(await guard.used(runId)).toBe(2);
      // two decisions of ours, at stream sequences 12 and 14, not projected yet
      await guard.withRun(runId, async (used) => ({ value: used, admitted: { callId: "c1", seq: 12 } }));
      expect(await guard.withRun(runId, async (used) => ({ value: used, admitted: { callId: "c2", seq: 14 } }))).toBe(3);
      expect(await guard.used(runId)).toBe(4);
      // the projector reaches sequence 12: c1 is in its count now, c2 is still ours alone
      await kvPutJson(kv, runBudgetKey(runId), projected(runId, 3, 12));
      expect(await guard.used(runId)).toBe(4);
      await kvPutJson(kv, runBudgetKey(runId), projected(runId, 4, 14));
      expect(await guard.used(runId)).toBe(4);
    } finally {
      guard.stop();
    }
  });

  it("decides one call of a run at a time, so concurrent calls see each other", async () => {
    const guard = await openBudgetGuard(t.bus);
    const runId = newId();
    try {
      let seq = 100;
      const seen = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          guard.withRun(runId, async (used) => {
            await new Promise((r) => setTimeout(r, 5));
            return { value: used, admitted: { callId: `c${i}`, seq: ++seq } };
          }),
        ),
      );
      expect([...seen].sort()).toEqual([0, 1, 2, 3, 4, 5]);
    } finally {
      guard.stop();
    }
  });
});
