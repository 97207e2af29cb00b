import { z } from "zod";
import { ToolNameSchema, VersionSchema } from "@warden/contracts/subjects";
import { SkillNameSchema } from "@warden/contracts/descriptor";
import { isAgentTool } from "@warden/contracts/policy";

/** How much of the delegating caller's context a subagent gets besides its task. */
export const CONTEXT_KINDS = ["none", "summary", "refs"] as const;
export type ContextKind = (typeof CONTEXT_KINDS)[number];

export const DEFAULT_BUDGET = { maxTurns: 4, maxToolCalls: 8, maxTokens: 50_000, timeoutMs: 120_000 } as const;

/** The most wall time a subagent may be given; its tool's timeout adds a grace on top. */
export const MAX_SUBAGENT_TIMEOUT_MS = 3_000_000;

const SubagentBudgetSchema = z.strictObject({
  maxTurns: z.int().min(1).max(50).default(DEFAULT_BUDGET.maxTurns),
  maxToolCalls: z.int().min(0).max(1_000).default(DEFAULT_BUDGET.maxToolCalls),
  maxTokens: z.int().min(1).max(10_000_000).default(DEFAULT_BUDGET.maxTokens),
  timeoutMs: z.int().min(100).max(MAX_SUBAGENT_TIMEOUT_MS).default(DEFAULT_BUDGET.timeoutMs),
});

/**
 * A subagent: a tool of domain `agent` that runs its own model loop over a fixed set of tools.
 * Everything it does re-enters Warden as child calls under its own principal.
 */
export const SubagentDescriptorSchema = z
  .strictObject({
    name: ToolNameSchema.refine(isAgentTool, "a subagent's name is agent.<capability>, e.g. agent.triage"),
    version: VersionSchema.default("1.0.0"),
    title: z.string().min(1).max(120),
    /** Written as *when to use it*: the delegating caller (often a model) reads this. */
    description: z.string().min(20).max(2_000),
    /** The subagent model's system prompt. */
    instructions: z.string().min(1).max(20_000),
    /** The model name sent to the endpoint; the service's default model when absent. */
    model: z.string().min(1).max(200).optional(),
    /** Tool names (`kb.search`, or `agent.x` to delegate further) the model may be shown. */
    allowedTools: z.array(ToolNameSchema).min(1).max(64),
    budget: SubagentBudgetSchema.default(SubagentBudgetSchema.parse({})),
    context: z.enum(CONTEXT_KINDS).default("none"),
    /**
     * The skills its tasks may activate (their instructions, and their scripts as far as its grade
     * and the policy allow); absent: every stored skill; empty: none.
     */
    skills: z.array(SkillNameSchema).max(64).optional(),
    /** Wait (within the time budget) for a child call that needs approval instead of reporting it pending at once. */
    waitForApproval: z.boolean().default(false),
  })
  .superRefine((d, ctx) => {
    if (d.allowedTools.includes(d.name)) ctx.addIssue({ code: "custom", path: ["allowedTools"], message: "a subagent may not delegate to itself" });
    if (new Set(d.allowedTools).size !== d.allowedTools.length) ctx.addIssue({ code: "custom", path: ["allowedTools"], message: "a tool is listed twice" });
  });
export type SubagentDescriptor = z.infer<typeof SubagentDescriptorSchema>;
export type SubagentDescriptorInput = z.input<typeof SubagentDescriptorSchema>;

/** A bug in a subagent definition: thrown at start, never at run time. */
export class SubagentDefinitionError extends Error {
  override readonly name = "SubagentDefinitionError";
}

export function parseSubagentDescriptor(raw: unknown): SubagentDescriptor {
  const parsed = SubagentDescriptorSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const name = typeof raw === "object" && raw !== null ? String((raw as { name?: unknown }).name) : "?";
  throw new SubagentDefinitionError(`subagent ${name}: ${z.prettifyError(parsed.error)}`);
}
