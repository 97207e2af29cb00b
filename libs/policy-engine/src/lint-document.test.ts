import { describe, expect, it } from "vitest";
import { type ToolDescriptor } from "@warden/contracts/descriptor";
import { PolicyDocumentSchema, type PolicyDocumentInput } from "@warden/contracts/policy";
import { record } from "../test-support/fixtures.js";
import { lintPolicyDocument, type LintContext } from "./lint-document.js";

const sideEffects = "Use when the change is wanted; it changes what others see later.";
const TOOLS: ToolDescriptor[] = [
  record().descriptor,
  record({ name: "ticket.fill", title: "Fill", grade: "write", description: sideEffects, preview: true }).descriptor,
  record({ name: "ticket.submit", title: "Submit", grade: "write", description: sideEffects }).descriptor,
  record({ name: "customer.message", title: "Message", grade: "send", openWorld: true, description: sideEffects }).descriptor,
];
const PEOPLE: PolicyDocumentInput["principals"] = { alice: { kind: "human", approves: ["send"] }, bot: { kind: "agent" } };

function lint(over: Partial<PolicyDocumentInput>, context: LintContext = {}) {
  const doc = PolicyDocumentSchema.parse({ version: "l1", principals: PEOPLE, ...over });
  return lintPolicyDocument(doc, context).map((f) => `${f.code} ${f.path.join(".")}`);
}

/** Only the findings of one family (`rule.`, `tool.`...), where a test looks at that family alone. */
const only = (prefixes: readonly string[], findings: readonly string[]) => findings.filter((f) => prefixes.some((p) => f.startsWith(p)));

const rule = (id: string, match: object, effect: "allow" | "deny" | "require_approval" = "deny") => ({ id, match, effect, reason: id });

describe("lintPolicyDocument", () => {
  it("finds nothing in a document whose every rule can decide something", () => {
    const rules = [rule("no-bot-send", { tool: "customer.*", principal: "bot" }), rule("fill-ok", { tool: "ticket.fill", mode: "llm" }, "allow")];
    const principals: PolicyDocumentInput["principals"] = { ...PEOPLE, alice: { kind: "human", approves: ["write", "send"] } };
    expect(lint({ principals, llm: { showWrite: ["ticket.fill"] }, rules }, { tools: TOOLS, identities: ["alice", "bot"] })).toEqual([]);
  });

  it("finds rules that can never match: empty lists, tool and domain that disagree, calls a gate refuses first", () => {
    expect(lint({ rules: [rule("none", { principal: [] })] })).toEqual(["rule.never_matches rules.0"]);
    expect(lint({ rules: [rule("apart", { tool: "kb.search", domain: "ticket" })] })).toEqual(["rule.never_matches rules.0"]);
    // a model's send reaches the rules now (it waits for a person): an allow cannot lift it, a deny tightens it
    expect(lint({ rules: [rule("model-send", { grade: "send", mode: "llm" }, "allow")] })).toEqual(["rule.no_effect rules.0.effect"]);
    expect(lint({ rules: [rule("no-model-send", { grade: "send", mode: "llm" }, "deny")] })).toEqual([]);
    // bot is an agent: mode human never reaches the rules for it
    expect(lint({ rules: [rule("bot-human", { principal: "bot", mode: "human" })] })).toEqual(["rule.never_matches rules.0"]);
    // without llm.showWrite a model's write is refused view.not_shown before the rules
    expect(lint({ rules: [rule("model-writes", { grade: "write", mode: "llm" })] })).toEqual(["rule.never_matches rules.0"]);
  });

  it("with the registry, finds a rule that matches none of the registered tools", () => {
    expect(lint({ rules: [rule("send-kb", { domain: "kb", grade: "send" })] }, { tools: TOOLS })).toEqual(["rule.never_matches rules.0"]);
  });

  it("finds rules whose effect never changes a decision", () => {
    // with the tools known, no read is an L1 tool outside a sandbox: the allow lifts nothing
    expect(lint({ rules: [rule("allow-reads", { grade: "read" }, "allow")] }, { tools: TOOLS })).toEqual(["rule.no_effect rules.0.effect"]);
    // offline, a model's read may be one, which an allow lifts
    expect(lint({ rules: [rule("allow-reads", { grade: "read" }, "allow")] })).toEqual([]);
    const inProcessCompute = record({ name: "kb.total", title: "Total", actionType: "compute" }).descriptor;
    expect(only(["rule."], lint({ rules: [rule("allow-total", { tool: "kb.total", mode: "llm" }, "allow")] }, { tools: [...TOOLS, inProcessCompute] }))).toEqual([]);
    expect(lint({ rules: [rule("approve-sends", { grade: "send" }, "require_approval")] })).toEqual(["rule.no_effect rules.0.effect"]);
    expect(only(["rule."], lint({ llm: { showWrite: ["ticket.*"] }, rules: [rule("lift", { tool: "ticket.fill" }, "allow")] }))).toEqual([]);
  });

  it("finds a rule shadowed by a deny, earlier or later for allow and approval, only earlier for deny", () => {
    const deny = rule("no-ticket-bot", { domain: "ticket", principal: "bot*" });
    expect(lint({ rules: [rule("approve-bot-submit", { tool: "ticket.submit", principal: "bot" }, "require_approval"), deny] })).toEqual([
      "rule.shadowed rules.0",
    ]);
    expect(lint({ rules: [deny, rule("again", { tool: "ticket.*", principal: "bot" })] })).toEqual(["rule.shadowed rules.1"]);
    expect(lint({ rules: [rule("again", { tool: "ticket.*", principal: "bot" }), deny] })).toEqual([]);
    // a deny for everyone covers a narrower one; a deny for one principal does not cover everyone
    expect(lint({ rules: [rule("wide", { tool: "kb.*" }), rule("narrow", { tool: "kb.search", principal: "bot" })] })).toEqual(["rule.shadowed rules.1"]);
    expect(lint({ rules: [rule("narrow", { tool: "kb.search", principal: "bot" }), rule("wide", { tool: "kb.*" })] })).toEqual([]);
    expect(only(["rule."], lint({ rules: [rule("bot-only", { principal: "bot" }), rule("all", { tool: "kb.search" }, "require_approval")] }))).toEqual([]);
  });

  it("finds principals named but unknown: to the document, and to Warden's identities when known", () => {
    expect(lint({ rules: [rule("mallory", { principal: "malory" })] })).toEqual(["principal.unknown rules.0.match.principal.0"]);
    expect(lint({ rules: [rule("mallory", { principal: "mallory" })] }, { identities: ["alice", "bot", "mallory"] })).toEqual([]);
    expect(lint({}, { identities: ["alice"] })).toEqual(["principal.no_identity principals.bot"]);
  });

  it("finds approvers with no rights and grades no person approves", () => {
    const out = lint({
      principals: { alice: { kind: "human", approves: ["read", "send"] }, bot: { kind: "agent", approves: ["send"] } },
      llm: { showWrite: ["ticket.fill"] },
    });
    expect(out).toEqual(["approver.grade_never_waits principals.alice.approves.0", "approver.not_a_person principals.bot.approves", "approval.no_approver principals"]);
    expect(lint({ principals: { bot: { kind: "agent" } } })).toEqual(["approval.no_approver principals"]);
    // a read waits when a rule says so, and then its approver has something to do
    expect(lint({ principals: { alice: { kind: "human", approves: ["read", "send"] } }, rules: [rule("ask", { tool: "kb.*" }, "require_approval")] }, { tools: TOOLS })).toEqual([]);
  });

  it("finds tools and domains named that do not exist, against the registered tools only when it has them", () => {
    const over = { llm: { showWrite: ["ticket.fil", "kb.search"] }, rules: [rule("crm", { domain: "crm" }), rule("wire", { tool: "kb__search" })], rateLimits: { perTool: [{ tool: "x.*", ratePerSecond: 1, burst: 1 }] } };
    const names = ["tool.", "domain.", "llm."];
    expect(only(names, lint(over))).toEqual(["tool.invalid_name rules.1.match.tool.0"]);
    expect(only(names, lint(over, { tools: TOOLS }))).toEqual([
      "domain.unknown rules.0.match.domain.0",
      "tool.invalid_name rules.1.match.tool.0",
      "tool.unknown llm.showWrite.0",
      "llm.show_write_not_write llm.showWrite.1",
      "tool.unknown rateLimits.perTool.0.tool.0",
    ]);
  });
});

describe("lint of the L2 default", () => {
  it("warns when llm.showWrite lets a model propose a workspace write with no dry run, and not when it has one", () => {
    // ticket.fill offers a dry run, ticket.submit none
    const findings = lintPolicyDocument(PolicyDocumentSchema.parse({ version: "l2", principals: PEOPLE, llm: { showWrite: ["ticket.*"] } }), { tools: TOOLS });
    expect(findings.filter((f) => f.code === "llm.show_write_no_preview")).toEqual([
      {
        code: "llm.show_write_no_preview",
        path: ["llm", "showWrite", 0],
        message: "llm.showWrite ticket.* lets a model propose ticket.submit: it offers no dry run (preview), so the person approving a workspace write (L2) sees its args, not the diff it makes",
      },
    ]);
    const previewed = lintPolicyDocument(PolicyDocumentSchema.parse({ version: "l2", principals: PEOPLE, llm: { showWrite: ["ticket.fill"] } }), { tools: TOOLS });
    expect(previewed.map((f) => f.code)).not.toContain("llm.show_write_no_preview");
  });
});

describe("lint of shadow rules", () => {
  const shadowDeny = { id: "try-deny", match: { grade: "read" as const }, effect: "deny" as const, reason: "trying", mode: "shadow" as const };

  it("does not count a shadow deny as shadowing an enforced rule: only an enforced deny decides", () => {
    const findings = lintPolicyDocument(
      PolicyDocumentSchema.parse({ version: "s1", rules: [shadowDeny, { id: "plan-reads-wait", match: { grade: "read", mode: "plan" }, effect: "require_approval", reason: "r" }] }),
      {},
    );
    expect(findings.filter((f) => f.code === "rule.shadowed")).toEqual([]);
  });

  it("lints a shadow rule as the rule it would be: covered by an enforced deny, it would never decide", () => {
    const findings = lintPolicyDocument(
      PolicyDocumentSchema.parse({ version: "s2", rules: [{ ...shadowDeny, mode: undefined, id: "deny-reads" }, { ...shadowDeny, effect: "require_approval" }] }),
      {},
    );
    expect(findings.map((f) => `${f.code} ${f.path.join(".")}`)).toContain("rule.shadowed rules.1");
  });
});
