import { describe, expect, it } from "vitest";
import { PolicyDocumentSchema, type PolicyDocumentInput } from "@warden/contracts/policy";
import { diffPolicyDocuments } from "./diff-documents.js";

const doc = (over: Partial<PolicyDocumentInput> = {}) => PolicyDocumentSchema.parse({ version: "v1", ...over });

describe("diffPolicyDocuments", () => {
  it("finds nothing between a document and itself", () => {
    const d = doc({ principals: { ann: { kind: "human", approves: ["write"] } }, rules: [{ id: "r1", effect: "deny", reason: "no" }] });
    expect(diffPolicyDocuments(d, PolicyDocumentSchema.parse(JSON.parse(JSON.stringify(d))))).toEqual([]);
  });

  it("names rules by id: added (with effect and mode), removed, changed field by field; order is no change", () => {
    const before = doc({
      rules: [
        { id: "a", effect: "deny", reason: "A" },
        { id: "b", effect: "allow", reason: "B" },
        { id: "c", effect: "require_approval", reason: "C" },
      ],
    });
    const after = doc({
      version: "v2",
      rules: [
        { id: "c", effect: "require_approval", reason: "C" },
        { id: "b", effect: "deny", reason: "B", mode: "shadow" },
        { id: "d", effect: "deny", reason: "D", mode: "shadow" },
      ],
    });
    expect(diffPolicyDocuments(before, after).map((c) => c.text)).toEqual([
      'version: "v1" → "v2"',
      'rules.b: effect "allow" → "deny"; mode (none) → "shadow"',
      "rules.d: added (deny, shadow): D",
      "rules.a: removed (deny): A",
    ]);
  });

  it("reports principals, teams, llm.showWrite, ledgers and limits, against the built-in defaults when none is stored", () => {
    const after = doc({
      principals: { ann: { kind: "human" } },
      teams: { ops: ["ann", "bot"] },
      llm: { showWrite: ["ticket.fill"] },
      views: { maxTools: 12 },
      budgets: { maxCallsPerRun: 5, ledgers: [{ id: "ops-daily", team: "ops", period: "day", calls: 20 }] },
      approvalQuota: { maxOpenPerRequester: 3 },
    });
    expect(diffPolicyDocuments(undefined, after).map((c) => c.text)).toEqual([
      'version: (none) → "v1"',
      "principals.ann: added: human",
      "teams.ops: added: ann, bot",
      "llm.showWrite: added ticket.fill",
      "views.maxTools: (none) → 12",
      "budgets.maxCallsPerRun: (none) → 5",
      "budgets.ledgers.ops-daily: added: 20 calls per day for team ops",
      "approvalQuota.maxOpenPerRequester: 50 → 3",
    ]);
    const later = doc({ ...after, teams: { ops: ["ann", "cy"] }, views: {}, budgets: { ledgers: [{ id: "ops-daily", team: "ops", period: "hour", calls: 20 }] } });
    expect(diffPolicyDocuments(after, later).map((c) => c.text)).toEqual([
      "teams.ops: added cy",
      "teams.ops: removed bot",
      "views.maxTools: 12 → (none)",
      "budgets.maxCallsPerRun: 5 → (none)",
      'budgets.ledgers.ops-daily: period "day" → "hour"',
    ]);
  });
});
