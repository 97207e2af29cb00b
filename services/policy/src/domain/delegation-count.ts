import { z } from "zod";

/**
 * The child calls counted against one subagent call (`warden_budgets` key `delegation.<callId>`).
 * `callIds` makes counting idempotent: a redelivered call is found, never counted twice.
 */
export const DelegationCountSchema = z.object({
  calls: z.int().nonnegative(),
  callIds: z.array(z.string()),
});
export type DelegationCount = z.infer<typeof DelegationCountSchema>;

export type CountStep =
  | { readonly kind: "counted"; readonly calls: number }
  | { readonly kind: "write"; readonly next: DelegationCount; readonly calls: number };

/** Counts `callId` (once) and says how many calls that makes; past `max` nothing is written. */
export function countStep(current: DelegationCount | undefined, callId: string, max: number): CountStep {
  const have = current ?? { calls: 0, callIds: [] };
  const at = have.callIds.indexOf(callId);
  if (at >= 0) return { kind: "counted", calls: at + 1 };
  // over the budget: the call is refused, so it needs no slot (and the record stays bounded)
  if (have.calls >= max) return { kind: "counted", calls: have.calls + 1 };
  return { kind: "write", next: { calls: have.calls + 1, callIds: [...have.callIds, callId] }, calls: have.calls + 1 };
}
