import { describe, expect, it } from "vitest";
import { DEFAULT_LIMITS, type EnvFile } from "@warden/identity";
import type { WhatIfReport } from "@warden/policy-engine";
import { principalsOfHome, whatifText } from "./policy-format.js";

describe("whatifText", () => {
  const report: WhatIfReport = {
    candidateVersion: "candidate-1",
    considered: 12,
    replayed: 10,
    changed: 3,
    unchanged: 7,
    sameDecisionOtherRules: 1,
    changes: [
      {
        from: { decision: "allow", ruleIds: ["default.read.plan"] },
        to: { decision: "require_approval", ruleIds: ["plans-fetch-with-care"] },
        count: 3,
        callIds: ["c1", "c2", "c3"],
        examples: [
          {
            callId: "c1",
            requestedAt: "2030-01-01T10:00:00.000Z",
            tool: "session.fetch",
            principal: "support-bot",
            mode: "plan",
            policyVersion: "support-desk-3",
            reasonBefore: "read in plan mode is allowed by default",
            reasonAfter: "sessions hold customer data",
          },
        ],
      },
    ],
    notReplayed: { rate_limit: 2 },
    recordedUnder: ["support-desk-3"],
    candidateHistoryGates: ["budgets.maxCallsPerRun"],
  };

  it("lists each change with its count, rule and examples, then what was not replayed and why", () => {
    const text = whatifText({ file: "candidate.yaml", since: "2030-01-01T00:00:00.000Z", until: null, requested: 14, undecided: 2 }, report);
    expect(text.split("\n")).toEqual([
      "what if candidate-1 (candidate.yaml) had decided the 14 calls requested 2030-01-01T00:00:00.000Z → now:",
      "  10 decisions replayed (recorded under support-desk-3): 3 would change, 7 would not (1 of them by other rules)",
      "",
      "allow → require_approval: 3 calls, by plans-fetch-with-care (was default.read.plan)",
      "  2030-01-01T10:00:00.000Z  c1  session.fetch by support-bot (plan): sessions hold customer data",
      "  … and 2 more (--json lists every call id)",
      "",
      "not replayed (they depend on history, not on the document alone): 2 decided by rate limits",
      "2 calls had no policy decision (refused by the registry, or still open)",
      "the candidate's budgets.maxCallsPerRun are not replayed: a call allowed above may still be refused by them",
    ]);
  });
});

describe("principalsOfHome", () => {
  it("takes the people, the agents and the subagents' principals, not services or revoked identities", () => {
    const identity = (spec: EnvFile["identities"][string]["spec"], revokedAt?: string) => ({ spec, creds: "c", publicKey: "k", ...(revokedAt ? { revokedAt } : {}) });
    const env: EnvFile = {
      v: 1,
      url: "nats://x",
      approverPublicKeys: [],
      notaryPublicKeys: [],
      retiredKeys: {},
      limits: DEFAULT_LIMITS,
      identities: {
        alice: identity({ kind: "human", name: "alice" }),
        bot: identity({ kind: "agent", name: "bot" }),
        gone: identity({ kind: "agent", name: "gone" }, "2030-01-01T00:00:00.000Z"),
        policy: identity({ kind: "service", name: "policy", role: "policy" }),
        subagent: identity({ kind: "subagent", name: "subagent", domains: ["agent"], principals: ["agent-triage"] }),
      },
    };
    expect(principalsOfHome(env)).toEqual(["agent-triage", "alice", "bot"]);
  });
});
