import { z } from "zod";
import { CallModeSchema, GradeSchema } from "./grades.js";
import { DecisionSchema } from "./policy-decision.js";
import { TokenSchema } from "./tokens.js";

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

export const PolicyRuleSchema = z.strictObject({
  id: z.string().regex(/^[A-Za-z0-9_.:-]{1,80}$/),
  match: PolicyMatchSchema.default({}),
  effect: DecisionSchema,
  reason: z.string().min(1),
});
export type PolicyRule = z.infer<typeof PolicyRuleSchema>;

export const PolicyDocumentSchema = z.strictObject({
  version: z.string().min(1).max(80),
  principals: z.record(TokenSchema, PrincipalSchema).default({}),
  /** `write` tools an `llm` caller may see (it still waits for a person to run them). */
  llm: z.strictObject({ showWrite: z.array(z.string()).default([]) }).default({ showWrite: [] }),
  rules: z.array(PolicyRuleSchema).default([]),
  /** Checked when a call arrives at the policy stage, before it is decided; refused RATE_LIMITED. */
  rateLimits: RateLimitsSchema.default({ perTool: [] }),
  budgets: z
    .strictObject({
      /** Calls per runId; the caller names its runs, so this paces a well-behaved agent only. */
      maxCallsPerRun: z.int().positive().optional(),
      /** Calls per principal over a sliding window, whatever runIds it uses (refilled continuously). */
      maxCallsPerPrincipal: z.strictObject({ calls: z.int().positive(), perSeconds: z.int().positive() }).optional(),
    })
    .default({}),
  /** Open (undecided, unexpired) approvals one requester may have; past it a call is refused APPROVAL_QUOTA. */
  approvalQuota: z.strictObject({ maxOpenPerRequester: z.int().positive().default(50) }).default({ maxOpenPerRequester: 50 }),
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
});
export type PolicyDocument = z.infer<typeof PolicyDocumentSchema>;
export type PolicyDocumentInput = z.input<typeof PolicyDocumentSchema>;

/** The document in force when none is stored: the default table alone. */
export const EMPTY_POLICY_DOCUMENT: PolicyDocument = PolicyDocumentSchema.parse({ version: "builtin-0" });

export const POLICY_DOCUMENT_KEY = "document";
