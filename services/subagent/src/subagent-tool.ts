import type { Grade } from "@warden/contracts/descriptor";
import { defineTool, type ExecutableTool } from "@warden/executor";
import type { SubagentDescriptor } from "./descriptor.js";
import { agentInputSchema } from "./domain/agent-input.js";
import { runSubagent, type RunDeps } from "./run-subagent.js";

/** The executor's own timeout lies this far past the time budget, so the loop always ends first. */
export const TIMEOUT_GRACE_MS = 5_000;

/** A subagent as a tool of domain `agent`: its grade is the highest among its allowed tools. */
export function subagentTool(agent: SubagentDescriptor, grade: Grade, deps: RunDeps): ExecutableTool {
  return defineTool({
    name: agent.name,
    version: agent.version,
    title: agent.title,
    description: agent.description,
    grade,
    inputSchema: agentInputSchema(agent.context, agent.budget),
    timeoutMs: agent.budget.timeoutMs + TIMEOUT_GRACE_MS,
    handler: (args, ctx) => runSubagent(deps, agent, grade, args, ctx),
  });
}
