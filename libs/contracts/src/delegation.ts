import { z } from "zod";
import type { JsonObject, JsonValue } from "./json.js";
import { parseToolName } from "./tokens.js";

/**
 * Delegation: a subagent is a tool of domain `agent` whose child calls re-enter Warden under the
 * subagent's own principal. The subagent service writes these conventions and the policy service
 * reads them back from the recorded chain, so both take them from here.
 */
export const AGENT_DOMAIN = "agent";

/** At most this many delegating calls above any call (parentCallId hops). */
export const MAX_DELEGATION_DEPTH = 3;

/** The principal a subagent's child calls run under: `agent.triage` -> `agent-triage`. */
export function subagentPrincipal(toolName: string): string {
  const parsed = parseToolName(toolName);
  if (parsed === undefined || parsed.domain !== AGENT_DOMAIN) throw new Error(`${toolName} is not an ${AGENT_DOMAIN}.* tool name`);
  return `${AGENT_DOMAIN}-${parsed.capability}`;
}

export function isAgentTool(toolName: string): boolean {
  return parseToolName(toolName)?.domain === AGENT_DOMAIN;
}

export const AGENT_BUDGET_KEYS = ["maxTurns", "maxToolCalls", "maxTokens", "timeoutMs"] as const;
export type AgentBudgetKey = (typeof AGENT_BUDGET_KEYS)[number];

/** What one subagent run may spend: model turns, child tool calls, model tokens, wall time. */
export const AgentBudgetSchema = z.strictObject({
  maxTurns: z.int().min(1).max(50),
  maxToolCalls: z.int().min(0).max(1_000),
  maxTokens: z.int().min(1).max(10_000_000),
  timeoutMs: z.int().min(100).max(3_600_000),
});
export type AgentBudget = z.infer<typeof AgentBudgetSchema>;

const MINIMUM: Record<AgentBudgetKey, number> = { maxTurns: 1, maxToolCalls: 0, maxTokens: 1, timeoutMs: 100 };

/**
 * The `budget` property of an agent tool's inputSchema. Its `maximum`s are the subagent's budget
 * ceiling, stored (and hashed) with the descriptor in the registry: that is where the policy reads
 * a delegating subagent's budget from. A caller may ask for less, never more.
 */
export function agentBudgetJsonSchema(ceiling: AgentBudget): JsonObject {
  const properties: JsonObject = {};
  for (const k of AGENT_BUDGET_KEYS) {
    properties[k] = { type: "integer", minimum: MINIMUM[k], maximum: ceiling[k], default: ceiling[k] };
  }
  return {
    type: "object",
    description: "optional lower limits for this run; the defaults are the most it may spend",
    properties,
    additionalProperties: false,
  };
}

function numberAt(obj: JsonValue | undefined, ...path: string[]): number | undefined {
  let cur: JsonValue | undefined = obj;
  for (const p of path) {
    if (cur === null || typeof cur !== "object" || Array.isArray(cur)) return undefined;
    cur = cur[p];
  }
  return typeof cur === "number" && Number.isFinite(cur) ? cur : undefined;
}

/** The budget ceiling an agent tool's inputSchema declares; undefined when it declares none. */
export function agentBudgetCeiling(inputSchema: JsonObject): AgentBudget | undefined {
  const out: Partial<AgentBudget> = {};
  for (const k of AGENT_BUDGET_KEYS) {
    const max = numberAt(inputSchema, "properties", "budget", "properties", k, "maximum");
    if (max === undefined) return undefined;
    out[k] = max;
  }
  const parsed = AgentBudgetSchema.safeParse(out);
  return parsed.success ? parsed.data : undefined;
}

/** The budget a call of an agent tool runs with: the ceiling, lowered by the call's `budget` arg. */
export function effectiveAgentBudget(inputSchema: JsonObject, args: JsonValue): AgentBudget | undefined {
  const ceiling = agentBudgetCeiling(inputSchema);
  if (ceiling === undefined) return undefined;
  const out = { ...ceiling };
  for (const k of AGENT_BUDGET_KEYS) {
    const asked = numberAt(args, "budget", k);
    if (asked !== undefined) out[k] = Math.min(out[k], Math.max(MINIMUM[k], Math.floor(asked)));
  }
  return out;
}
