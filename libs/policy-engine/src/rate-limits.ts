import { toWireName } from "@warden/contracts/subjects";
import { type PolicyDocument, type RateLimit } from "@warden/contracts/policy";
import { anyGlob } from "./glob.js";
import { principalOf } from "./principals.js";

export const RATE_RULES = {
  principal: "rate.principal",
  tool: "rate.tool",
  principalBudget: "budget.max_calls_per_principal",
} as const;

export type RateRuleId = (typeof RATE_RULES)[keyof typeof RATE_RULES];

/** One bucket a call draws a token from; `bucket` names it under the principal (absent: the principal's own). */
export interface RateBucket {
  readonly rule: RateRuleId;
  readonly bucket?: string;
  readonly limit: RateLimit;
}

/**
 * The buckets a call draws from, in order: the principal's rate (`principals.<name>.rateLimit`,
 * else `rateLimits.perPrincipal`), the first `rateLimits.perTool` entry matching the tool, then
 * the principal's budget (`budgets.maxCallsPerPrincipal`, a slow bucket holding the whole budget),
 * last so a call the rate refuses spends none of it. None configured, none drawn.
 */
export function rateBucketsOf(doc: PolicyDocument, principal: string, tool: string): RateBucket[] {
  const out: RateBucket[] = [];
  const own = principalOf(doc, principal).rateLimit ?? doc.rateLimits.perPrincipal;
  if (own !== undefined) out.push({ rule: RATE_RULES.principal, limit: own });
  const perTool = doc.rateLimits.perTool.find((t) => anyGlob(t.tool, tool));
  if (perTool !== undefined) {
    // keyed by the tool (its wire name: one key token, one name each), so each matching tool has a bucket of its own
    out.push({ rule: RATE_RULES.tool, bucket: `tool-${toWireName(tool)}`, limit: { burst: perTool.burst, ratePerSecond: perTool.ratePerSecond } });
  }
  const budget = doc.budgets.maxCallsPerPrincipal;
  if (budget !== undefined) {
    out.push({ rule: RATE_RULES.principalBudget, bucket: "budget", limit: { burst: budget.calls, ratePerSecond: budget.calls / budget.perSeconds } });
  }
  return out;
}

