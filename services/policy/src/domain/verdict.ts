import type { Decision, ErrorCode, PolicyDocument, ToolArgsValidated, ToolRecord } from "@warden/contracts";
import { evaluatePolicy } from "@warden/policy-engine";

export const DESCRIPTOR_BOUND_RULE = "invariant.descriptor_bound";
export const BUDGET_RULE = "budget.max_calls_per_run";
/** A delegated call over what its delegating subagent has left (see attenuation.ts). */
export const ATTENUATION_BUDGET_RULE = "attenuation.budget";

/** What the policy stage decided for one call, before it becomes an event. */
export interface Verdict {
  readonly decision: Decision;
  readonly ruleIds: readonly string[];
  readonly reason: string;
}

/**
 * Decides a validated call: the descriptor it was validated against must still be the one
 * stored under its version (same hash), then the engine decides. The budget comes after.
 */
export function decideCall(doc: PolicyDocument, record: ToolRecord | undefined, event: ToolArgsValidated): Verdict {
  const { version, descriptorHash } = event.data;
  if (record === undefined) {
    return deny(DESCRIPTOR_BOUND_RULE, `${event.tool}@${version} is not registered; the call was validated against a descriptor that no longer exists`);
  }
  if (record.descriptorHash !== descriptorHash) {
    return deny(DESCRIPTOR_BOUND_RULE, `${event.tool}@${version} changed since the call was validated (descriptor hash differs)`);
  }
  const e = evaluatePolicy(doc, {
    tool: record.descriptor,
    principal: event.principal,
    mode: event.mode,
    flags: event.data.flags,
    scope: event.data.scope,
  });
  return { decision: e.decision, ruleIds: [...e.ruleIds], reason: e.reason };
}

export function budgetExceeded(runId: string, max: number): Verdict {
  return deny(BUDGET_RULE, `run ${runId} has used its ${max} calls (budgets.maxCallsPerRun)`);
}

/** The error a denied call is rejected with, from the rule that denied it. */
export function rejectionCode(ruleIds: readonly string[]): ErrorCode {
  if (ruleIds.includes(DESCRIPTOR_BOUND_RULE)) return "DESCRIPTOR_CHANGED";
  if (ruleIds.includes(BUDGET_RULE) || ruleIds.includes(ATTENUATION_BUDGET_RULE)) return "BUDGET_EXCEEDED";
  return "POLICY_DENIED";
}

function deny(rule: string, reason: string): Verdict {
  return { decision: "deny", ruleIds: [rule], reason };
}
