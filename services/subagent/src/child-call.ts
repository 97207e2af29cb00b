import type { AgentClient } from "@warden/sdk";
import { type ToolResult } from "@warden/contracts/events";
import { wardenError, type WardenError } from "@warden/contracts/errors";
import { isAgentTool } from "@warden/contracts/policy";
import { type JsonObject } from "@warden/contracts/json";
import { AgentArgsSchema } from "./domain/agent-input.js";
import type { BudgetMeter } from "./domain/budget-meter.js";
import type { OwnCall } from "./domain/view-event.js";

export interface ChildCallOptions {
  readonly client: AgentClient;
  readonly own: OwnCall;
  readonly meter: BudgetMeter;
  readonly waitForApproval: boolean;
}

/**
 * The args a child call is published with. A nested subagent is given at most what this one has
 * left (after counting the call to it); too little left is a refusal.
 */
export function childArgs(meter: BudgetMeter, tool: string, args: JsonObject, nowMs: number): { ok: true; args: JsonObject } | { ok: false; error: WardenError } {
  if (!isAgentTool(tool)) return { ok: true, args };
  const asked = AgentArgsSchema.shape.budget.safeParse(args["budget"]);
  const budget = meter.nestedBudget(nowMs, asked.success ? asked.data : undefined);
  if (budget === undefined) {
    return { ok: false, error: wardenError("BUDGET_EXCEEDED", `too little of this subagent's budget is left to delegate to ${tool}; answer with what you have`) };
  }
  return { ok: true, args: { ...args, budget } };
}

/**
 * Publishes one vetted call as a child of the subagent's call: llm mode, the subagent's own
 * principal, the delegating caller's flags and scope (never more), the same run.
 */
export function callChild(o: ChildCallOptions, tool: string, args: JsonObject): Promise<ToolResult> {
  return o.client.call(tool, args, {
    parentCallId: o.own.callId,
    mode: "llm",
    scope: o.own.scope,
    flags: o.own.flags,
    runId: o.own.correlationId,
    wait: o.waitForApproval,
    timeoutMs: Math.max(1, o.meter.remainingMs(Date.now())),
    // the delegated task is what every child call is for; the model's own words are not trusted here
    ...(o.own.intent === undefined ? {} : { intent: o.own.intent }),
  });
}
