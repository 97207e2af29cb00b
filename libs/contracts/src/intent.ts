import { z } from "zod";

/**
 * Why a call is made, in the caller's words: what it is for, why this tool and these args, and
 * what the caller expects to change. Shown to the person who approves it, and in trace and audit;
 * it is the caller's claim, never evidence, and decides nothing.
 */
export const INTENT_LIMITS = { goal: 300, rationale: 2_000, expectedEffect: 1_000 } as const;

const bounded = (field: keyof typeof INTENT_LIMITS) =>
  z.string().max(INTENT_LIMITS[field], `intent.${field} is at most ${INTENT_LIMITS[field]} characters`);

export const IntentSchema = z.strictObject({
  /** What the caller is trying to achieve (the task it works on). */
  goal: bounded("goal").min(1, "intent.goal may not be empty"),
  /** Why this call, with these args, serves that goal. */
  rationale: bounded("rationale").optional(),
  /** What the caller expects the call to change (or to find out). */
  expectedEffect: bounded("expectedEffect").optional(),
});
export type Intent = z.infer<typeof IntentSchema>;

/** The intent a delegated call inherits: the delegating task, said to come from its delegator. */
export function delegatedIntent(task: string, delegator: string, tool: string): Intent {
  const goal = task.length <= INTENT_LIMITS.goal ? task : `${task.slice(0, INTENT_LIMITS.goal - 1)}…`;
  return { goal, rationale: `asked by ${delegator} through ${tool}; the subagent's model chose this call for that task` };
}
