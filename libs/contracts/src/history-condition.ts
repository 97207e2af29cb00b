import { z } from "zod";
import { ActionTypeSchema } from "./action-type.js";
import { DataLabelSchema } from "./data-labels.js";
import { QuorumConditionSchema } from "./quorum-condition.js";
import { TokenSchema } from "./tokens.js";

/**
 * Whose earlier calls a history condition looks at: the call's run (its correlationId, named by the
 * caller), its principal, or its delegation tree (the top call of its parentCallId chain, or the
 * call itself when it has no parent).
 */
export const HISTORY_SCOPES = ["run", "principal", "tree"] as const;
export type HistoryScope = (typeof HISTORY_SCOPES)[number];

/** The longest `within` a condition may look back: its index is bounded by time as well as size. */
export const MAX_HISTORY_WINDOW_SECONDS = 24 * 3600;
/** Most earlier calls one index key holds (docs/policy.md, History conditions). */
export const MAX_HISTORY_ENTRIES = 512;
/** A count limit stays below the index's size, so the index can always hold what it counts. */
export const MAX_HISTORY_COUNT = 500;
/** At most this many matched call ids are recorded on a decision (the count says how many there were). */
export const MAX_HISTORY_MATCHED_IDS = 50;

const UNIT_SECONDS = { s: 1, m: 60, h: 3600 } as const;
const WITHIN = /^([1-9][0-9]{0,5})(s|m|h)$/;

/** `90s`, `15m`, `1h` in seconds; undefined when it is not such a duration. */
export function windowSeconds(within: string): number | undefined {
  const m = WITHIN.exec(within);
  if (m === null) return undefined;
  return Number(m[1]) * UNIT_SECONDS[m[2] as keyof typeof UNIT_SECONDS];
}

const ArgNameSchema = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "a top-level argument name (letters, digits, _ -)");
const oneOrMany = <T extends z.ZodType>(s: T) =>
  z.union([s, z.array(s)]).transform((v) => (Array.isArray(v) ? v : [v]) as z.infer<T>[]);

/** Which earlier calls a condition counts: by tool (globs) or action type, their args, and how they ended. */
export const HistoryCallsSchema = z.strictObject({
  tool: oneOrMany(z.string().min(1)).optional(),
  actionType: oneOrMany(ActionTypeSchema).optional(),
  /** Every condition must hold on the earlier call's top-level args (as approvalQuorum's `when`). */
  args: z.array(QuorumConditionSchema).max(8).optional(),
  /** `ok`: only calls that finished with ok true; absent: every admitted call not released (in flight included). */
  outcome: z.literal("ok").optional(),
});
export type HistoryCalls = z.infer<typeof HistoryCallsSchema>;

/**
 * A rule's condition over earlier calls of the same scope within a bounded window. Exactly one
 * form: `exists` (at least one), `absent` (none), `count: { max }` or `sum: { arg, max }`, which
 * hold when this call would pass the limit (earlier calls in flight count; this call counts too when
 * it is one of `calls`). `same` correlates: an earlier call counts only when these args equal the
 * current call's.
 */
export const HistoryConditionSchema = z
  .strictObject({
    scope: z.enum(HISTORY_SCOPES),
    /** How far back: `30s`, `15m`, `1h`, at most `24h`. */
    within: z.string().regex(WITHIN, "a duration like 90s, 15m or 1h"),
    calls: HistoryCallsSchema,
    same: z.array(ArgNameSchema).min(1).max(4).optional(),
    exists: z.literal(true).optional(),
    absent: z.literal(true).optional(),
    count: z.strictObject({ max: z.int().nonnegative().max(MAX_HISTORY_COUNT) }).optional(),
    sum: z.strictObject({ arg: ArgNameSchema, max: z.number().nonnegative().max(1e15) }).optional(),
  })
  .superRefine((c, ctx) => {
    const forms = [c.exists, c.absent, c.count, c.sum].filter((f) => f !== undefined).length;
    if (forms !== 1) ctx.addIssue({ code: "custom", path: [], message: "a history condition needs exactly one of exists, absent, count or sum" });
    const seconds = windowSeconds(c.within);
    if (seconds !== undefined && seconds > MAX_HISTORY_WINDOW_SECONDS) {
      ctx.addIssue({ code: "custom", path: ["within"], message: `within ${c.within} is longer than the cap of 24h (${MAX_HISTORY_WINDOW_SECONDS} s)` });
    }
    if (c.calls.tool === undefined && c.calls.actionType === undefined) {
      ctx.addIssue({ code: "custom", path: ["calls"], message: "calls needs a tool or an actionType (which earlier calls count)" });
    }
    if (c.calls.outcome !== undefined && (c.count !== undefined || c.sum !== undefined)) {
      ctx.addIssue({ code: "custom", path: ["calls", "outcome"], message: "outcome applies to exists and absent only: a limit counts calls in flight" });
    }
  });
export type HistoryCondition = z.infer<typeof HistoryConditionSchema>;

/** What a rule's `when` asks beyond its match. */
export const RuleWhenSchema = z
  .strictObject({
    history: HistoryConditionSchema.optional(),
    /** The labels the call's run (and its delegation tree) has read, every one of them (docs/policy.md, Data labels). */
    runLabels: z.array(DataLabelSchema).min(1).max(8).optional(),
  })
  .refine((w) => w.history !== undefined || w.runLabels !== undefined, "when needs history or runLabels");
export type RuleWhen = z.infer<typeof RuleWhenSchema>;

/** One history condition as a decision evaluated it (ToolPolicyChecked `history`): what audit sees. */
export const HistoryFindingSchema = z.object({
  ruleId: z.string().min(1).max(80),
  scope: z.enum(HISTORY_SCOPES),
  /** The run id, principal or tree's top call id the scope named. */
  holder: TokenSchema,
  /** Whether the condition held, so the rule took part in the decision. */
  holds: z.boolean(),
  /** The earlier calls it counted (at most MAX_HISTORY_MATCHED_IDS; `count` says how many). */
  matched: z.array(TokenSchema).max(MAX_HISTORY_MATCHED_IDS),
  count: z.int().nonnegative(),
  /** For a sum: the earlier calls' total, and this call's own amount when it counts. */
  sum: z.number().optional(),
  own: z.number().optional(),
});
export type HistoryFinding = z.infer<typeof HistoryFindingSchema>;

/** An index key an admitted call was recorded in (ToolPolicyChecked `historyHolds`), settled at its result. */
export const HistoryHoldSchema = z.object({
  key: z.string().regex(/^history\.[0-9a-f]{32}$/),
  ruleId: z.string().min(1).max(80),
});
export type HistoryHold = z.infer<typeof HistoryHoldSchema>;
