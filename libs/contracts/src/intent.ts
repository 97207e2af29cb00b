import { z } from "zod";
import { ActionTypeSchema, PermissionLevelSchema } from "./action-type.js";
import { GradeSchema } from "./grades.js";
import { TokenSchema } from "./tokens.js";

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

/**
 * What a caller wants done, before it has chosen a tool (the source's ToolIntent): resolved into
 * ranked candidates and a ToolView of just those (`warden resolve`, `agent.resolve`). The words
 * of `goal`, `task`, `target` and `expectedEffect` are matched against the tools' names, titles
 * and descriptions; `actionType` ranks the tools that declare it first; `domain`, `grade` and
 * `maxLevel` narrow the candidates. It asks, it never grants: the candidates are only tools the
 * caller's view shows anyway.
 */
export const ToolIntentSchema = z.strictObject({
  goal: bounded("goal").min(1, "intent.goal may not be empty"),
  /** The concrete step the caller is at, within the goal. */
  task: z.string().max(1_000).optional(),
  /** What the action is on: a customer, a ticket, a file. */
  target: z.string().max(300).optional(),
  expectedEffect: bounded("expectedEffect").optional(),
  /** Only tools of this domain. */
  domain: TokenSchema.optional(),
  /** Only tools of this side-effect grade (read: look something up; write; send). */
  grade: GradeSchema.optional(),
  /** The kind of action wanted (search, patch, external_send…): tools that declare it rank first. */
  actionType: ActionTypeSchema.optional(),
  /** Only tools at this permission level or below (L0 pure read … L5 destructive or admin). */
  maxLevel: PermissionLevelSchema.optional(),
  constraints: z.array(z.string().max(300)).max(20).optional(),
  rationale: bounded("rationale").optional(),
  evidenceRefs: z.array(z.string().max(300)).max(20).optional(),
  confidence: z.number().min(0).max(1).optional(),
});
export type ToolIntent = z.infer<typeof ToolIntentSchema>;
