import { describe, expect, it } from "vitest";
import { CALL_MODES } from "@warden/contracts/descriptor";
import { PolicyDocumentSchema, type PolicyDocument, type PolicyDocumentInput } from "@warden/contracts/policy";
import { record } from "../test-support/fixtures.js";
import { evaluateCall } from "./evaluate-call.js";
import { lintPolicyDocument } from "./lint-document.js";
import { domainGlobOf, globSubset } from "./match-analysis.js";

const sideEffects = "Use when the change is wanted; it changes what others see later.";
const TOOLS = [
  record().descriptor,
  record({ name: "crm.export", title: "Export" }).descriptor,
  record({ name: "crm.note", title: "Note", grade: "write", description: sideEffects }).descriptor,
  record({ name: "ticket.fill", title: "Fill", grade: "write", description: sideEffects }).descriptor,
  record({ name: "ticket.submit", title: "Submit", grade: "write", description: sideEffects }).descriptor,
  record({ name: "customer.message", title: "Message", grade: "send", openWorld: true, description: sideEffects }).descriptor,
  record({ name: "crm.sync", title: "Sync", grade: "write", openWorld: true, description: sideEffects }).descriptor,
];
const PRINCIPALS = ["alice", "bob", "bot", "bot2", "mallory"];

/** Every decision the document makes over the tools, principals and modes above. */
function decisions(doc: PolicyDocument): string[] {
  return TOOLS.flatMap((tool) =>
    PRINCIPALS.flatMap((principal) => CALL_MODES.map((mode) => `${tool.name} ${principal} ${mode}: ${evaluateCall(doc, { tool, principal, mode, flags: {}, scope: null }).decision}`)),
  );
}

describe("globSubset and domainGlobOf", () => {
  it("say a glob covers another only when it does", () => {
    expect(globSubset("crm.export", "crm.*")).toBe(true);
    expect(globSubset("crm.ex*", "crm.*")).toBe(true);
    expect(globSubset("crm.*", "crm.ex*")).toBe(false);
    expect(globSubset("*", "crm.*")).toBe(false);
    expect(globSubset("bot-*", "*")).toBe(true);
  });

  it("take the domain of a tool pattern from before its dot", () => {
    expect(domainGlobOf("crm.export")).toBe("crm");
    expect(domainGlobOf("cr*.export")).toBe("cr*");
    expect(domainGlobOf("crm*")).toBe("crm*");
    expect(domainGlobOf("*port")).toBe("*");
  });
});

describe("the lint's rule findings", () => {
  const docs: Partial<PolicyDocumentInput>[] = [
    {
      rules: [
        { id: "no-crm", match: { domain: "crm" }, effect: "deny", reason: "x" },
        { id: "crm-export-bots", match: { tool: "crm.export", principal: "bot*" }, effect: "require_approval", reason: "x" },
        { id: "crm-again", match: { tool: "crm.*", mode: ["plan", "llm"] }, effect: "deny", reason: "x" },
        { id: "allow-reads", match: { grade: "read" }, effect: "allow", reason: "x" },
        { id: "approve-sends", match: { grade: "send" }, effect: "require_approval", reason: "x" },
        { id: "bot-as-person", match: { principal: "bot", mode: "human" }, effect: "deny", reason: "x" },
        { id: "model-sends", match: { grade: "send", mode: "llm" }, effect: "allow", reason: "x" },
      ],
    },
    {
      llm: { showWrite: ["ticket.fill"] },
      rules: [
        { id: "fill-ok", match: { tool: "ticket.fill", mode: "llm" }, effect: "allow", reason: "x" },
        { id: "submit-ok", match: { tool: "ticket.submit", mode: "llm" }, effect: "allow", reason: "x" },
        { id: "no-ticket-bot2", match: { domain: "ticket", principal: "bot2" }, effect: "deny", reason: "x" },
        { id: "bot2-fill", match: { tool: "ticket.fill", principal: ["bot2"] }, effect: "allow", reason: "x" },
        { id: "writes-wait", match: { grade: "write", mode: "plan" }, effect: "require_approval", reason: "x" },
      ],
    },
    {
      rules: [
        // lifts the L4 default of crm.sync: it decides
        { id: "sync-ok", match: { tool: "crm.sync", mode: "plan" }, effect: "allow", reason: "x" },
        // crm.note is L2: plan writes are allowed already
        { id: "note-ok", match: { tool: "crm.note", mode: "plan" }, effect: "allow", reason: "x" },
      ],
    },
  ];

  it.for(docs.map((d, i) => [i, d] as const))("name only rules that can be removed without changing any decision (document %i)", ([, over]) => {
    const doc = PolicyDocumentSchema.parse({ version: "s1", principals: { alice: { kind: "human", approves: ["write", "send"] }, bob: { kind: "human" }, bot: { kind: "agent" } }, ...over });
    const flagged = lintPolicyDocument(doc, { tools: TOOLS }).filter((f) => f.code.startsWith("rule."));
    expect(flagged.length).toBeGreaterThan(0);
    for (const f of flagged) {
      const index = f.path[1] as number;
      const without = { ...doc, rules: doc.rules.filter((_, i) => i !== index) };
      expect(decisions(without), `${f.code} ${doc.rules[index]!.id}`).toEqual(decisions(doc));
    }
  });

  it("names the rules in those documents that can be removed, and none that decides", () => {
    const ids = docs.map((over) => {
      const doc = PolicyDocumentSchema.parse({ version: "s1", principals: { alice: { kind: "human", approves: ["write", "send"] }, bob: { kind: "human" }, bot: { kind: "agent" } }, ...over });
      return lintPolicyDocument(doc, { tools: TOOLS })
        .filter((f) => f.code.startsWith("rule."))
        .map((f) => `${f.code} ${doc.rules[f.path[1] as number]!.id}`);
    });
    expect(ids).toEqual([
      // a model's send reaches the rules (it waits for a person), but no allow lifts it
      ["rule.never_matches bot-as-person", "rule.shadowed crm-export-bots", "rule.shadowed crm-again", "rule.no_effect allow-reads", "rule.no_effect approve-sends", "rule.no_effect model-sends"],
      ["rule.never_matches submit-ok", "rule.shadowed bot2-fill"],
      ["rule.no_effect note-ok"],
    ]);
  });
});
