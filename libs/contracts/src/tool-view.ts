import { z } from "zod";
import { ActionTypeSchema, PermissionLevelSchema } from "./action-type.js";
import { CallModeSchema, GradeSchema } from "./grades.js";
import { ToolIntentSchema } from "./intent.js";
import { JsonObjectSchema } from "./json.js";
import { TokenSchema } from "./tokens.js";

/**
 * How a view is rendered: `openai` (Chat Completions `tools`), `openai-responses` (the Responses
 * API's and the Agents SDK's function tools), `anthropic`, `mcp` (an MCP tools/list), `table`.
 */
export const TOOL_VIEW_FORMATS = ["openai", "openai-responses", "anthropic", "mcp", "table"] as const;
export const ToolViewFormatSchema = z.enum(TOOL_VIEW_FORMATS);
export type ToolViewFormat = z.infer<typeof ToolViewFormatSchema>;

/** Who is looking: a view is compiled per (principal, mode, flags, scope). */
export const ToolViewQuerySchema = z.strictObject({
  principal: TokenSchema,
  mode: CallModeSchema,
  flags: z.record(z.string(), z.boolean()).default({}),
  scope: TokenSchema.nullable().default(null),
  /** Restrict to these tool names (a subagent's allowed tools). */
  only: z.array(z.string()).optional(),
});
export type ToolViewQuery = z.infer<typeof ToolViewQuerySchema>;
export type ToolViewQueryInput = z.input<typeof ToolViewQuerySchema>;

export const HIDDEN_REASONS = [
  "send_never_listed_for_llm",
  "write_not_opted_in_for_llm",
  "feature_flag_off",
  "out_of_scope",
  "missing_principal_scope",
  "disabled",
  "policy_denied",
  "not_in_allowed_tools",
  "no_executor",
  "not_matching_intent",
  "over_view_cap",
] as const;
export const HiddenReasonSchema = z.enum(HIDDEN_REASONS);

export const ToolViewEntrySchema = z.object({
  name: z.string(),
  wireName: z.string(),
  version: z.string(),
  title: z.string(),
  description: z.string(),
  grade: GradeSchema,
  /** The tool's permission level L0–L5, declared or derived (`levelOf`), as policy decides on it. */
  level: PermissionLevelSchema,
  /** The action type the tool declares, if it declares one. */
  actionType: ActionTypeSchema.optional(),
  inputSchema: JsonObjectSchema,
  /** What calling it will lead to for this caller. */
  decision: z.enum(["allow", "require_approval"]),
  reason: z.string(),
  ruleIds: z.array(z.string()),
  /**
   * `caller` when the tool acts with the caller's own credentials (a secret bound to the calling
   * principal, or the principal a subagent's caller delegated for); `service` when with its
   * executor's. Absent for a tool that uses no secrets.
   */
  actsAs: z.enum(["caller", "service"]).optional(),
});
export type ToolViewEntry = z.infer<typeof ToolViewEntrySchema>;

export const HiddenToolSchema = z.object({
  name: z.string(),
  version: z.string(),
  grade: GradeSchema,
  reason: HiddenReasonSchema,
  detail: z.string(),
  ruleIds: z.array(z.string()),
});
export type HiddenTool = z.infer<typeof HiddenToolSchema>;

/** A tool an intent resolved to: its score and, in words, why (deterministic: ties go by name). */
export const ToolCandidateSchema = z.object({
  name: z.string(),
  version: z.string(),
  grade: GradeSchema,
  /** The tool's permission level, declared or derived. */
  level: PermissionLevelSchema,
  /** The action type the tool declares, if it declares one. */
  actionType: ActionTypeSchema.optional(),
  score: z.number(),
  reasons: z.array(z.string()),
});
export type ToolCandidate = z.infer<typeof ToolCandidateSchema>;

/**
 * How many tools a view asked for without an intent shows at most, unless the request
 * (`maxTools`) or the policy document (`views.maxTools`) says otherwise: a model chooses worse
 * among many tools, and every listed tool costs its context (docs/architecture.md, ToolView).
 */
export const DEFAULT_VIEW_MAX_TOOLS = 20;
/** The most a request or a document may ask a view to show. */
export const MAX_VIEW_MAX_TOOLS = 500;
export const ViewMaxToolsSchema = z.int().min(1).max(MAX_VIEW_MAX_TOOLS);

/** What a capped view left out: how many, under which cap, and how to ask for them. */
export const ToolViewOmittedSchema = z.object({
  count: z.int().positive(),
  maxTools: ViewMaxToolsSchema,
  /** Where the cap came from: the request, the policy document, or the default. */
  capFrom: z.enum(["request", "policy", "default"]),
  /** In words, for a person or a model: ask with an intent, or for a larger cap. */
  hint: z.string(),
});
export type ToolViewOmitted = z.infer<typeof ToolViewOmittedSchema>;

export const ToolViewSchema = z.object({
  query: ToolViewQuerySchema,
  policyVersion: z.string(),
  tools: z.array(ToolViewEntrySchema),
  hidden: z.array(HiddenToolSchema),
  /** Set when the view was asked for an intent: the ranked candidates it shows (best first). */
  candidates: z.array(ToolCandidateSchema).optional(),
  /**
   * Set when a view asked for without an intent had more tools than its cap: the ranked first
   * `maxTools` are shown (`hidden` lists the rest as `over_view_cap` when explained).
   */
  omitted: ToolViewOmittedSchema.optional(),
});
export type ToolView = z.infer<typeof ToolViewSchema>;

export const ToolViewRequestSchema = ToolViewQuerySchema.extend({
  format: ToolViewFormatSchema.default("openai"),
  explain: z.boolean().default(false),
  /** Resolve this intent: the view shows only the best-matching tools, ranked (`candidates`). */
  intent: ToolIntentSchema.optional(),
  /** With `intent`: at most this many candidates. @default 5 */
  limit: z.int().min(1).max(50).optional(),
  /** Without `intent`: show at most this many tools, ranked. @default the policy's `views.maxTools`, else DEFAULT_VIEW_MAX_TOOLS */
  maxTools: ViewMaxToolsSchema.optional(),
});
export type ToolViewRequest = z.infer<typeof ToolViewRequestSchema>;
export type ToolViewRequestInput = z.input<typeof ToolViewRequestSchema>;
