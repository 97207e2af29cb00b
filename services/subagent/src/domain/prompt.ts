import type { AgentBudget } from "@warden/contracts/policy";
import type { AgentArgs } from "./agent-input.js";

export interface PromptMessage {
  readonly role: "system" | "user";
  readonly content: string;
}

/** A result an earlier call of the run left, as text for the model (refs context). */
export interface RefText {
  readonly callId: string;
  readonly text: string;
}

/**
 * The first two messages of a run: the instructions of the skills the task activated (if any),
 * the subagent's instructions with its limits, then the task with exactly the context its
 * descriptor inherits (none, the caller's summary, or refs).
 */
export function initialMessages(instructions: string, budget: AgentBudget, args: AgentArgs, refs: readonly RefText[], skills = ""): PromptMessage[] {
  const limits =
    `You work within a budget of ${budget.maxTurns} turns and ${budget.maxToolCalls} tool calls. ` +
    "Call only the tools you are given. When you have what you need, answer in plain text without calling a tool.";
  const parts = [args.task];
  if (args.summary !== undefined && args.summary.trim() !== "") parts.push(`Context from the caller:\n${args.summary}`);
  if (refs.length > 0) parts.push(`Results of earlier calls in this run:\n${refs.map((r) => `[${r.callId}] ${r.text}`).join("\n")}`);
  return [
    { role: "system", content: `${skills === "" ? "" : `${skills}\n\n---\n\n`}${instructions}\n\n${limits}` },
    { role: "user", content: parts.join("\n\n") },
  ];
}
