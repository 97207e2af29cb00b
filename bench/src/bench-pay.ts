import { descriptorHash, ToolDescriptorSchema, type ToolRecord } from "@warden/contracts/descriptor";
import type { PolicyDocumentInput } from "@warden/contracts/policy";

type PolicyRuleInput = NonNullable<PolicyDocumentInput["rules"]>[number];

/** The tool the history benches decide calls of: a write with an account and an amount. */
export const BENCH_PAY = ToolDescriptorSchema.parse({
  name: "bench.pay",
  version: "1.0.0",
  title: "Pay",
  description: "Use when the bench needs a call to decide.",
  inputSchema: { type: "object", properties: { account: { type: "string" }, amount: { type: "number" } } },
  grade: "write",
});

export function benchPayRecord(at: string): ToolRecord {
  return { descriptor: BENCH_PAY, descriptorHash: descriptorHash(BENCH_PAY), status: "enabled", registeredAt: at, statusChangedAt: at };
}

/** A sum limit over the run that concerns every payment and never binds: the cost of keeping one. */
export const BENCH_SUM_RULE: PolicyRuleInput = {
  id: "bench.sum",
  match: { tool: "bench.pay" },
  when: { history: { scope: "run", within: "1h", calls: { tool: "bench.pay" }, sum: { arg: "amount", max: 1e12 } } },
  effect: "deny",
  reason: "a sum limit that never binds",
};
