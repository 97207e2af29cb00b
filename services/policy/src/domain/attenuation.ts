import { type ToolArgsValidated } from "@warden/contracts/events";
import { type CallMode, type ToolDescriptor } from "@warden/contracts/descriptor";
import {
  decisionRank,
  effectiveAgentBudget,
  isAgentTool,
  MAX_DELEGATION_DEPTH,
  subagentPrincipal,
  type AgentBudget,
  type PolicyDocument,
} from "@warden/contracts/policy";
import { type JsonValue } from "@warden/contracts/json";
import { ATTENUATION_CHECKED_RULE, effectiveFlags, evaluatePolicy } from "@warden/policy-engine";
import { ATTENUATION_BUDGET_RULE, type Verdict } from "./verdict.js";

/**
 * Attenuation: a call made on behalf of another (it has a parentCallId) never holds a tool, scope,
 * flag or budget the delegating callers lack. Everything is read from the recorded chain.
 */
export const ATTENUATION_RULES = {
  chain: "attenuation.chain",
  depth: "attenuation.depth",
  flag: "attenuation.flag",
  scope: "attenuation.scope",
  tool: "attenuation.tool",
  delegation: "attenuation.delegation",
  budget: ATTENUATION_BUDGET_RULE,
  checked: ATTENUATION_CHECKED_RULE,
} as const;

/** Clocks of different hosts, and the time between a subagent's check and ours. */
export const TIME_TOLERANCE_MS = 2_000;

/** One delegating call above the call being decided, as its events record it. */
export interface ChainLink {
  readonly callId: string;
  readonly tool: string;
  readonly principal: string;
  readonly mode: CallMode;
  readonly flags: Readonly<Record<string, boolean>>;
  readonly scope: string | null;
  readonly args: JsonValue;
  /** The descriptor of the version it runs (undefined when the registry no longer has it). */
  readonly descriptor: ToolDescriptor | undefined;
  /** When its ToolCallStarted was written; undefined when it has not started. */
  readonly startedAtMs: number | undefined;
  readonly ended: boolean;
  /** For a subagent: every tool its model was shown on any turn, and the allowed sends a view hid (its ToolViewCompiled events). */
  readonly shownTools: readonly string[];
  readonly parentCallId?: string | undefined;
}

/** The ancestors of a call, parent first; `tooDeep` when the walk passed the depth cap. */
export type Chain =
  | { readonly kind: "found"; readonly links: readonly ChainLink[]; readonly tooDeep: boolean }
  | { readonly kind: "missing"; readonly callId: string };

export interface AgentAncestor {
  readonly callId: string;
  readonly budget: AgentBudget;
}

export type ChainCheck =
  | { readonly kind: "deny"; readonly verdict: Verdict }
  /** Passed: the verdict (maybe tightened) and the subagents whose tool-call budgets the call counts against. */
  | { readonly kind: "pass"; readonly verdict: Verdict; readonly agents: readonly AgentAncestor[]; readonly childBudget: AgentBudget | undefined };

function deny(rule: string, reason: string, more: readonly string[] = []): ChainCheck {
  return { kind: "deny", verdict: { decision: "deny", ruleIds: [rule, ...more], reason } };
}

export interface ChainFacts {
  readonly doc: PolicyDocument;
  readonly call: ToolArgsValidated;
  /** The descriptor of the called tool. */
  readonly tool: ToolDescriptor;
  /** The call's own decision, before attenuation. */
  readonly verdict: Verdict;
  readonly chain: Chain;
  readonly nowMs: number;
}

/** Everything that can be checked without counting: chain, depth, flags, scope, tools, time. */
export function checkChain(f: ChainFacts): ChainCheck {
  const { call, chain } = f;
  if (chain.kind === "missing") return deny(ATTENUATION_RULES.chain, `the delegating call ${chain.callId} is not a subagent call on record`);
  const parent = chain.links[0];
  if (parent === undefined) return deny(ATTENUATION_RULES.chain, "the call names a parent but no delegating call was found");
  const depth = chain.links.length;
  if (chain.tooDeep || depth > MAX_DELEGATION_DEPTH || (isAgentTool(call.tool) && depth >= MAX_DELEGATION_DEPTH)) {
    return deny(ATTENUATION_RULES.depth, `delegation is capped at ${MAX_DELEGATION_DEPTH} levels`);
  }
  for (const link of chain.links) {
    if (link.startedAtMs === undefined || link.ended) {
      return deny(ATTENUATION_RULES.chain, `the delegating call ${link.callId} (${link.tool}) is not running`);
    }
  }
  if (isAgentTool(parent.tool)) {
    const own = subagentPrincipal(parent.tool);
    if (call.principal !== own || call.mode !== "llm") {
      return deny(ATTENUATION_RULES.chain, `child calls of ${parent.tool} run as ${own} in llm mode, not as ${call.principal} in ${call.mode} mode`);
    }
    if (!parent.shownTools.includes(call.tool)) {
      const rule = isAgentTool(call.tool) ? ATTENUATION_RULES.delegation : ATTENUATION_RULES.tool;
      return deny(rule, `${call.tool} was never shown to ${parent.tool}'s model: it is not among its allowed, visible tools`);
    }
  }
  // a child may not even ask for a flag its delegator did not ask for
  for (const [flag, on] of Object.entries(call.data.flags)) {
    if (on && parent.flags[flag] !== true) return deny(ATTENUATION_RULES.flag, `flag ${flag} is not set on the delegating call ${parent.callId}`);
  }
  const flagged = heldFlagBeyondChain(f, chain.links);
  if (flagged !== undefined) return flagged;
  if (call.data.scope !== null && call.data.scope !== parent.scope) {
    return deny(ATTENUATION_RULES.scope, `scope ${call.data.scope} is not the delegating call's scope (${parent.scope ?? "none"})`);
  }
  const asDelegators = asEveryDelegator(f, chain.links);
  if (asDelegators.kind === "deny") return asDelegators;
  // the top of the chain is whom the call runs for: its credentials bound to the caller are that principal's
  const top = chain.links[chain.links.length - 1]!;
  return checkTime(f, chain.links, { ...asDelegators.verdict, onBehalfOf: top.principal });
}

/**
 * The flag that gates the called tool, when the child holds it: every delegating call must hold it
 * too, as the document grants it to that call's principal and that call's own request left it on
 * (a delegator that turned a flag off cannot pass it on, nor can one the document never gave it).
 */
function heldFlagBeyondChain(f: ChainFacts, links: readonly ChainLink[]): ChainCheck | undefined {
  const flag = f.tool.featureFlag;
  if (flag === undefined || effectiveFlags(f.doc, f.call.principal, f.call.data.flags)[flag] !== true) return undefined;
  for (const link of links) {
    if (effectiveFlags(f.doc, link.principal, link.flags)[flag] !== true) {
      return deny(ATTENUATION_RULES.flag, `flag ${flag} is not held by ${link.principal} on the delegating call ${link.callId}`);
    }
  }
  return undefined;
}

/** The call decided as if each delegating principal made it: the strictest decision holds. */
function asEveryDelegator(f: ChainFacts, links: readonly ChainLink[]): { kind: "deny"; verdict: Verdict } | { kind: "ok"; verdict: Verdict } {
  let verdict = f.verdict;
  for (const link of links) {
    const e = evaluatePolicy(f.doc, { tool: f.tool, principal: link.principal, mode: f.call.mode, flags: f.call.data.flags, scope: f.call.data.scope });
    if (e.decision === "deny") {
      return { kind: "deny", verdict: { decision: "deny", ruleIds: [ATTENUATION_RULES.tool, ...e.ruleIds], reason: `${link.principal}, who delegated this call, may not make it: ${e.reason}` } };
    }
    if (decisionRank(e.decision) > decisionRank(verdict.decision)) {
      verdict = { decision: e.decision, ruleIds: [...verdict.ruleIds, ATTENUATION_RULES.tool, ...e.ruleIds], reason: `as ${link.principal}, who delegated it: ${e.reason}` };
    }
  }
  return { kind: "ok", verdict };
}

/** Subagents above the call still have time, and a nested subagent gets no more than they have left. */
function checkTime(f: ChainFacts, links: readonly ChainLink[], verdict: Verdict): ChainCheck {
  const agents: AgentAncestor[] = [];
  let childBudget: AgentBudget | undefined;
  if (isAgentTool(f.call.tool)) {
    childBudget = effectiveAgentBudget(f.tool.inputSchema, f.call.data.args);
    if (childBudget === undefined) return deny(ATTENUATION_RULES.budget, `${f.call.tool} declares no budget, so it cannot be bounded by its delegator's`);
  }
  for (const link of links) {
    if (!isAgentTool(link.tool)) continue;
    const budget = link.descriptor === undefined ? undefined : effectiveAgentBudget(link.descriptor.inputSchema, link.args);
    if (budget === undefined) return deny(ATTENUATION_RULES.budget, `the budget of the delegating call ${link.callId} (${link.tool}) cannot be read`);
    const leftMs = (link.startedAtMs ?? 0) + budget.timeoutMs - f.nowMs;
    if (leftMs < -TIME_TOLERANCE_MS) {
      return deny(ATTENUATION_RULES.budget, `the time budget of ${link.tool} (${budget.timeoutMs} ms) is spent`);
    }
    if (childBudget !== undefined && childBudget.timeoutMs > Math.max(0, leftMs) + TIME_TOLERANCE_MS) {
      return deny(ATTENUATION_RULES.budget, `${f.call.tool} asks for ${childBudget.timeoutMs} ms; ${link.tool} has ${Math.max(0, Math.round(leftMs))} ms left`);
    }
    if (childBudget !== undefined && childBudget.maxTokens > budget.maxTokens) {
      return deny(ATTENUATION_RULES.budget, `${f.call.tool} asks for ${childBudget.maxTokens} tokens; ${link.tool} may spend ${budget.maxTokens}`);
    }
    agents.push({ callId: link.callId, budget });
  }
  return { kind: "pass", verdict: { ...verdict, ruleIds: [...verdict.ruleIds, ATTENUATION_RULES.checked] }, agents, childBudget };
}

/**
 * After the call is counted against each subagent above it (`counts[i]`, this call included):
 * none may be over its tool-call budget, and a nested subagent may not be given more calls than
 * the tightest of them has left.
 */
export function checkCounts(agents: readonly AgentAncestor[], counts: readonly number[], childBudget: AgentBudget | undefined, tool: string): Verdict | undefined {
  for (const [i, a] of agents.entries()) {
    const used = counts[i] ?? 0;
    if (used > a.budget.maxToolCalls) {
      return { decision: "deny", ruleIds: [ATTENUATION_RULES.budget], reason: `the delegating subagent call ${a.callId} has used its ${a.budget.maxToolCalls} tool calls` };
    }
    const left = a.budget.maxToolCalls - used;
    if (childBudget !== undefined && childBudget.maxToolCalls > left) {
      return { decision: "deny", ruleIds: [ATTENUATION_RULES.budget], reason: `${tool} asks for ${childBudget.maxToolCalls} tool calls; its delegator has ${left} left` };
    }
  }
  return undefined;
}
