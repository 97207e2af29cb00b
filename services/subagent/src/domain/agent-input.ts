import { z } from "zod";
import { TOKEN_PATTERN } from "@warden/contracts/subjects";
import { agentBudgetJsonSchema, type AgentBudget } from "@warden/contracts/policy";
import { type JsonObject } from "@warden/contracts/json";
import type { ContextKind } from "../descriptor.js";

export const MAX_TASK_CHARS = 8_000;
export const MAX_REFS = 8;

/** The JSON Schema of a subagent tool's args: the task, the context it inherits, and a budget it may be lowered to. */
export function agentInputSchema(context: ContextKind, ceiling: AgentBudget): JsonObject {
  const properties: JsonObject = {
    task: { type: "string", minLength: 1, maxLength: MAX_TASK_CHARS, description: "what the subagent should find out or do, in plain words" },
  };
  if (context === "summary") {
    properties["summary"] = {
      type: "string",
      maxLength: MAX_TASK_CHARS,
      description: "what you know so far that the subagent needs (it sees nothing else of your conversation)",
    };
  }
  if (context === "refs") {
    properties["refs"] = {
      type: "array",
      maxItems: MAX_REFS,
      items: { type: "string", pattern: TOKEN_PATTERN.source },
      description: "callIds of earlier calls in this run whose results the subagent should read",
    };
  }
  properties["budget"] = agentBudgetJsonSchema(ceiling);
  return { type: "object", properties, required: ["task"], additionalProperties: false };
}

const PartialBudgetSchema = z
  .object({ maxTurns: z.int(), maxToolCalls: z.int(), maxTokens: z.int(), timeoutMs: z.int() })
  .partial();

export const AgentArgsSchema = z.object({
  task: z.string().min(1).max(MAX_TASK_CHARS),
  summary: z.string().max(MAX_TASK_CHARS).optional(),
  refs: z.array(z.string().regex(TOKEN_PATTERN)).max(MAX_REFS).optional(),
  budget: PartialBudgetSchema.optional(),
});
export type AgentArgs = z.infer<typeof AgentArgsSchema>;
