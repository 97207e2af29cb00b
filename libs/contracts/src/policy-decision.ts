import { z } from "zod";

export const DECISIONS = ["allow", "require_approval", "deny"] as const;
export const DecisionSchema = z.enum(DECISIONS);
export type Decision = z.infer<typeof DecisionSchema>;

/** Strictness order: deny > require_approval > allow. */
export function decisionRank(d: Decision): number {
  return DECISIONS.indexOf(d);
}
