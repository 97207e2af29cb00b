import { z } from "zod";
import { ActionTypeSchema, PermissionLevelSchema } from "./action-type.js";
import { CallModeSchema, GradeSchema } from "./grades.js";
import { DecisionSchema } from "./policy-decision.js";
import { RuleWhenSchema } from "./history-condition.js";
import { QuorumConditionSchema } from "./quorum-condition.js";
import { MAX_SESSION_GRANT_SECONDS } from "./session-grant.js";
import { TokenSchema } from "./tokens.js";
import { ViewMaxToolsSchema } from "./tool-view.js";

export const PRINCIPAL_KINDS = ["human", "agent", "service"] as const;

/** A token bucket: up to `burst` calls at once, refilled at `ratePerSecond`. */
export const RateLimitSchema = z.strictObject({
  ratePerSecond: z.number().positive().max(1_000_000),
  burst: z.int().positive().max(1_000_000),
});
export type RateLimit = z.infer<typeof RateLimitSchema>;

export const PrincipalSchema = z.strictObject({
  kind: z.enum(PRINCIPAL_KINDS),
  /** Permission scopes, matched against a tool's requiredScopes. */
  scopes: z.array(z.string()).default([]),
  /** Grades this principal may approve (only humans may approve). */
  approves: z.array(GradeSchema).default([]),
  /**
   * Feature flags granted to this principal (a tool's featureFlag); none when absent. A call's
   * own flags may only turn a granted flag off, never on.
   */
  flags: z.record(TokenSchema, z.boolean()).optional(),
  /** May cancel anyone's call that has not started (`warden cancel`); a requester may always cancel its own. */
  operator: z.boolean().optional(),
  /** This principal's own bucket, in place of `rateLimits.perPrincipal`. */
  rateLimit: RateLimitSchema.optional(),
});
export type Principal = z.infer<typeof PrincipalSchema>;

const oneOrMany = <T extends z.ZodType>(s: T) =>
  z.union([s, z.array(s)]).transform((v) => (Array.isArray(v) ? v : [v]) as z.infer<T>[]);

export const PolicyMatchSchema = z.strictObject({
  tool: oneOrMany(z.string()).optional(),
  domain: oneOrMany(z.string()).optional(),
  grade: oneOrMany(GradeSchema).optional(),
  mode: oneOrMany(CallModeSchema).optional(),
  principal: oneOrMany(z.string()).optional(),
  /** The tool's action type (`delete`, `external_send`, …); a tool that declares none matches no actionType. */
  actionType: oneOrMany(ActionTypeSchema).optional(),
  /** The tool's permission level, declared or derived (L0–L5). */
  level: oneOrMany(PermissionLevelSchema).optional(),
  destructive: z.boolean().optional(),
  openWorld: z.boolean().optional(),
});

/** A bucket per principal and tool, for the tools its globs match (the first entry that matches). */
export const ToolRateLimitSchema = RateLimitSchema.extend({ tool: oneOrMany(z.string()) });
export type ToolRateLimit = z.infer<typeof ToolRateLimitSchema>;

/** How much one principal may ask for: its token buckets, and a budget no run id escapes. */
export const RateLimitsSchema = z.strictObject({
  /** Every principal's bucket (unless `principals.<name>.rateLimit` names its own); none when absent. */
  perPrincipal: RateLimitSchema.optional(),
  perTool: z.array(ToolRateLimitSchema).default([]),
});

/**
 * How a rule takes part: `enforce` (the default, also when absent) decides; `shadow` is evaluated
 * and its would-be decision recorded on ToolPolicyChecked (`shadow`), but it decides nothing.
 */
export const RULE_MODES = ["enforce", "shadow"] as const;
export type RuleMode = (typeof RULE_MODES)[number];

export const PolicyRuleSchema = z.strictObject({
  id: z.string().regex(/^[A-Za-z0-9_.:-]{1,80}$/),
  match: PolicyMatchSchema.default({}),
  /** Beyond the match: a condition over earlier calls (docs/policy.md, History conditions). */
  when: RuleWhenSchema.optional(),
  effect: DecisionSchema,
  reason: z.string().min(1),
  /** `shadow`: recorded, never deciding (docs/policy.md, Shadow rules); absent means `enforce`. */
  mode: z.enum(RULE_MODES).optional(),
});
export type PolicyRule = z.infer<typeof PolicyRuleSchema>;

/** How long a ledger counts before it starts again (UTC: the hour, or the day from midnight). */
export const LEDGER_PERIODS = ["hour", "day"] as const;
export type LedgerPeriod = (typeof LEDGER_PERIODS)[number];

/**
 * A budget kept as a ledger (docs/policy.md, Budgets): calls and cost units reserved when a call is
 * decided and settled at its result, per holder and period. The holder is exactly one of: each
 * principal its patterns match (its own ledger each), a team of the document (one ledger shared by
 * its members), or each tool its patterns match (one ledger per tool, whoever calls it).
 */
export const LedgerBudgetSchema = z
  .strictObject({
    /** Names the ledger in keys, rule details and `warden budgets`. */
    id: TokenSchema.max(64),
    principal: oneOrMany(z.string().min(1)).optional(),
    team: TokenSchema.optional(),
    tool: oneOrMany(z.string().min(1)).optional(),
    period: z.enum(LEDGER_PERIODS),
    /** Calls per period. */
    calls: z.int().positive().max(1_000_000_000).optional(),
    /** Cost units per period: each call costs its tool's declared `cost` (1 when it declares none). */
    cost: z.int().positive().max(1_000_000_000_000).optional(),
  })
  .superRefine((l, ctx) => {
    const holders = [l.principal, l.team, l.tool].filter((h) => h !== undefined).length;
    if (holders !== 1) ctx.addIssue({ code: "custom", path: [], message: `ledger ${l.id} needs exactly one of principal, team or tool (whose budget it is)` });
    if (l.calls === undefined && l.cost === undefined) ctx.addIssue({ code: "custom", path: [], message: `ledger ${l.id} needs calls, cost or both (what it counts)` });
  });
export type LedgerBudget = z.infer<typeof LedgerBudgetSchema>;

/**
 * Separation of duties: how many distinct people must grant an approval before the call runs,
 * for the calls it matches (every field given must match, `when` on the call's args; the first
 * entry that matches decides).
 * Nobody in the requester's delegation chain counts, and one person counts once. An L5 call
 * (destructive or admin) needs 2 by default (`default.quorum.L5`): an entry may ask more of it, and
 * only an entry that names `level: L5` itself, with an `id` and a `reason`, may ask fewer.
 */
export const ApprovalQuorumSchema = z.strictObject({
  /** Names the entry on the approval card (`quorumRule`); `approvalQuorum[<index>]` when absent. */
  id: z.string().regex(/^[A-Za-z0-9_.:-]{1,80}$/).optional(),
  /** Why it asks this many people: shown on the card with the id. */
  reason: z.string().min(1).max(300).optional(),
  tool: oneOrMany(z.string()).optional(),
  grade: oneOrMany(GradeSchema).optional(),
  /** The tool's permission level, declared or derived (L0–L5). */
  level: oneOrMany(PermissionLevelSchema).optional(),
  /** The tool's action type; a tool that declares none matches no actionType. */
  actionType: oneOrMany(ActionTypeSchema).optional(),
  /** Only calls whose args meet it (`{ arg: amount, gt: 1000 }`): "a send over 1000 needs two". */
  when: QuorumConditionSchema.optional(),
  approvers: z.int().min(1).max(10),
});
export type ApprovalQuorum = z.infer<typeof ApprovalQuorumSchema>;

export const PolicyDocumentSchema = z.strictObject({
  version: z.string().min(1).max(80),
  principals: z.record(TokenSchema, PrincipalSchema).default({}),
  /** `write` tools an `llm` caller may see (it still waits for a person to run them). */
  llm: z.strictObject({ showWrite: z.array(z.string()).default([]) }).default({ showWrite: [] }),
  /** How views are compiled: `maxTools` caps a view asked for without an intent (default DEFAULT_VIEW_MAX_TOOLS; a request's `maxTools` overrides it). */
  views: z.strictObject({ maxTools: ViewMaxToolsSchema.optional() }).optional(),
  /** Named groups of principals, for budgets a team shares (`budgets.ledgers[].team`). */
  teams: z.record(TokenSchema, z.array(TokenSchema).min(1)).optional(),
  rules: z.array(PolicyRuleSchema).default([]),
  /** Checked when a call arrives at the policy stage, before it is decided; refused RATE_LIMITED. */
  rateLimits: RateLimitsSchema.default({ perTool: [] }),
  budgets: z
    .strictObject({
      /** Calls per runId; the caller names its runs, so this paces a well-behaved agent only. */
      maxCallsPerRun: z.int().positive().optional(),
      /** Calls per principal over a sliding window, whatever runIds it uses (refilled continuously). */
      maxCallsPerPrincipal: z.strictObject({ calls: z.int().positive(), perSeconds: z.int().positive() }).optional(),
      /** Budgets per principal, team or tool and period, reserved at decision and settled at the result. */
      ledgers: z.array(LedgerBudgetSchema).optional(),
    })
    .default({}),
  /** Open (undecided, unexpired) approvals one requester may have; past it a call is refused APPROVAL_QUOTA. */
  approvalQuota: z.strictObject({ maxOpenPerRequester: z.int().positive().default(50) }).default({ maxOpenPerRequester: 50 }),
  /** Distinct approvers per tool, grade or level (docs/approvals.md, Quorum); one when none matches, two for an L5 call. */
  approvalQuorum: z.array(ApprovalQuorumSchema).optional(),
  /**
   * Grants "for the session" (docs/approvals.md): the grades a person may grant that way and the
   * longest such a grant may last. Never for a call that needs a quorum, nor for an L5 call.
   */
  sessionGrants: z
    .strictObject({
      grades: z.array(GradeSchema).default(["write"]),
      maxTtlSeconds: z.int().min(1).max(MAX_SESSION_GRANT_SECONDS).default(3600),
    })
    .default({ grades: ["write"], maxTtlSeconds: 3600 }),
  /** How long an approval stays open, per grade, in seconds. */
  approvalTtlSeconds: z
    .strictObject({ write: z.int().positive().default(3600), send: z.int().positive().default(900) })
    .default({ write: 3600, send: 900 }),
}).superRefine((doc, ctx) => {
  const seen = new Set<string>();
  doc.rules.forEach((r, i) => {
    if (seen.has(r.id)) ctx.addIssue({ code: "custom", path: ["rules", i, "id"], message: `duplicate rule id ${r.id}` });
    seen.add(r.id);
  });
  const quorumIds = new Set<string>();
  doc.approvalQuorum?.forEach((q, i) => {
    if (q.id !== undefined) {
      if (quorumIds.has(q.id)) ctx.addIssue({ code: "custom", path: ["approvalQuorum", i, "id"], message: `duplicate approvalQuorum id ${q.id}` });
      quorumIds.add(q.id);
    }
    // fewer than two people for a destructive or admin call is a loosening: said on purpose, and named
    if (q.approvers < 2 && q.level?.includes("L5") === true && (q.id === undefined || q.reason === undefined)) {
      ctx.addIssue({ code: "custom", path: ["approvalQuorum", i], message: "an entry that lowers an L5 call's quorum below 2 needs an id and a reason (the card records them)" });
    }
  });
  const ledgers = new Set<string>();
  doc.budgets.ledgers?.forEach((l, i) => {
    if (ledgers.has(l.id)) ctx.addIssue({ code: "custom", path: ["budgets", "ledgers", i, "id"], message: `duplicate ledger id ${l.id}` });
    ledgers.add(l.id);
    if (l.team !== undefined && !Object.hasOwn(doc.teams ?? {}, l.team)) {
      ctx.addIssue({ code: "custom", path: ["budgets", "ledgers", i, "team"], message: `team ${l.team} is not defined in teams` });
    }
  });
});
export type PolicyDocument = z.infer<typeof PolicyDocumentSchema>;
export type PolicyDocumentInput = z.input<typeof PolicyDocumentSchema>;

/** The document in force when none is stored: the default table alone. */
export const EMPTY_POLICY_DOCUMENT: PolicyDocument = PolicyDocumentSchema.parse({ version: "builtin-0" });

export const POLICY_DOCUMENT_KEY = "document";
