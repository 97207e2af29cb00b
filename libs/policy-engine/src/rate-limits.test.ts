import { describe, expect, it } from "vitest";
import { PolicyDocumentSchema, type PolicyDocumentInput } from "@warden/contracts/policy";
import { rateBucketsOf } from "./rate-limits.js";

const doc = (over: Partial<PolicyDocumentInput> = {}) => PolicyDocumentSchema.parse({ version: "r1", ...over });

describe("rateBucketsOf", () => {
  it("draws from no bucket when the document configures none", () => {
    expect(rateBucketsOf(doc(), "bot", "kb.search")).toEqual([]);
  });

  it("draws from the principal's own rate over the default, the first matching tool entry, then the principal budget", () => {
    const d = doc({
      principals: { bot: { kind: "agent", rateLimit: { ratePerSecond: 1, burst: 2 } } },
      rateLimits: {
        perPrincipal: { ratePerSecond: 10, burst: 20 },
        perTool: [
          { tool: "crm.*", ratePerSecond: 0.5, burst: 1 },
          { tool: "crm.export", ratePerSecond: 5, burst: 5 },
        ],
      },
      budgets: { maxCallsPerPrincipal: { calls: 100, perSeconds: 3600 } },
    });
    expect(rateBucketsOf(d, "bot", "crm.export")).toEqual([
      { rule: "rate.principal", limit: { ratePerSecond: 1, burst: 2 } },
      { rule: "rate.tool", bucket: "tool-crm__export", limit: { ratePerSecond: 0.5, burst: 1 } },
      { rule: "budget.max_calls_per_principal", bucket: "budget", limit: { burst: 100, ratePerSecond: 100 / 3600 } },
    ]);
    expect(rateBucketsOf(d, "other", "kb.search")).toEqual([
      { rule: "rate.principal", limit: { ratePerSecond: 10, burst: 20 } },
      expect.objectContaining({ rule: "budget.max_calls_per_principal" }),
    ]);
  });
});
