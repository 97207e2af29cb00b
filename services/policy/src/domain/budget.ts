import { z } from "zod";

/**
 * A run's budget record in `warden_budgets`. `callIds` lists the calls counted so far, so a
 * redelivered call is never counted twice; it holds at most maxCallsPerRun ids because calls
 * over the budget are refused without being recorded.
 */
export const BudgetRecordSchema = z.object({
  calls: z.int().nonnegative(),
  callIds: z.array(z.string()).default([]),
});
export type BudgetRecord = z.infer<typeof BudgetRecordSchema>;

export type BudgetStep =
  /** Count the call: write `next` (compare-and-set) and the call is number `calls`. */
  | { readonly kind: "count"; readonly next: BudgetRecord; readonly calls: number }
  /** The call was counted before (a redelivery): nothing to write. */
  | { readonly kind: "counted"; readonly calls: number }
  | { readonly kind: "exceeded"; readonly calls: number };

export function budgetStep(current: BudgetRecord | undefined, callId: string, max: number): BudgetStep {
  const calls = current?.calls ?? 0;
  const callIds = current?.callIds ?? [];
  const at = callIds.indexOf(callId);
  if (at >= 0) return { kind: "counted", calls: at + 1 };
  if (calls >= max) return { kind: "exceeded", calls };
  return { kind: "count", next: { calls: calls + 1, callIds: [...callIds, callId] }, calls: calls + 1 };
}
