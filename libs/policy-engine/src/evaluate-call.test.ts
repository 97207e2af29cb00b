import { describe, expect, it } from "vitest";
import { ToolDescriptorSchema, type CallMode, type ToolDescriptor } from "@warden/contracts/descriptor";
import { PolicyDocumentSchema, type PolicyDocumentInput } from "@warden/contracts/policy";
import { gradedTool } from "../test-support/fixtures.js";
import { evaluateCall } from "./evaluate-call.js";
import { toolVisibility } from "./visibility.js";

const doc = (over: Partial<PolicyDocumentInput> = {}) => PolicyDocumentSchema.parse({ version: "t1", principals: { bot: { kind: "agent" } }, ...over });
const facts = (t: ToolDescriptor, mode: CallMode) => ({ tool: t, principal: "bot", mode, flags: {}, scope: null });

describe("evaluateCall", () => {
  it("denies a model's call to a write tool its view does not list with view.not_shown", () => {
    const e = evaluateCall(doc(), facts(gradedTool("ticket.submit", "write"), "llm"));
    expect(e).toMatchObject({ decision: "deny", ruleIds: ["view.not_shown", "llm.show_write"] });
    expect(e.reason).toMatch(/not in this caller's tool view/);
  });

  it("asks a person for a model's write the document shows it", () => {
    const e = evaluateCall(doc({ llm: { showWrite: ["ticket.*"] } }), facts(gradedTool("ticket.submit", "write"), "llm"));
    expect(e).toMatchObject({ decision: "require_approval", ruleIds: ["default.write.llm"] });
  });

  it("makes a model's send wait for a person although its view never lists it", () => {
    const send = gradedTool("customer.message", "send");
    expect(toolVisibility(doc(), send, facts(send, "llm"))).toMatchObject({ visible: false, reason: "send_never_listed_for_llm", ruleIds: ["invariant.send_never_llm"] });
    expect(evaluateCall(doc(), facts(send, "llm"))).toMatchObject({ decision: "require_approval", ruleIds: ["default.send.llm"] });
  });

  it("refuses a model's send the document denies, or one a gate refuses, as for any other caller", () => {
    const send = gradedTool("customer.message", "send");
    const d = doc({ rules: [{ id: "bot-sends-nothing", match: { principal: ["bot"], grade: ["send"] }, effect: "deny", reason: "no" }] });
    expect(evaluateCall(d, facts(send, "llm"))).toMatchObject({ decision: "deny", ruleIds: ["bot-sends-nothing"] });
    const scoped = ToolDescriptorSchema.parse({ ...send, requiredScopes: ["crm:send"] });
    expect(evaluateCall(doc(), facts(scoped, "llm"))).toMatchObject({ decision: "deny", ruleIds: ["gate.principal_scope"] });
  });

  it("lets a model call a shown read tool, and leaves plan mode to the table", () => {
    expect(evaluateCall(doc(), facts(gradedTool("kb.search", "read"), "llm"))).toMatchObject({ decision: "allow", ruleIds: ["default.read.llm"] });
    expect(evaluateCall(doc(), facts(gradedTool("ticket.submit", "write"), "plan"))).toMatchObject({ decision: "allow", ruleIds: ["default.write.plan"] });
  });

  it("agrees with toolVisibility for reads and writes: a model's call is denied exactly when its view hides the tool", () => {
    for (const grade of ["read", "write"] as const) {
      const t = gradedTool(`x.${grade}`, grade);
      const shown = toolVisibility(doc(), t, facts(t, "llm")).visible;
      expect(evaluateCall(doc(), facts(t, "llm")).decision === "deny", grade).toBe(!shown);
    }
  });
});

describe("shadow rules", () => {
  const shadowDeny = { id: "no-bot-search", match: { tool: "kb.search", principal: "bot" }, effect: "deny" as const, reason: "trying it out", mode: "shadow" as const };

  it("records what a matching shadow rule would decide without letting it decide", () => {
    const e = evaluateCall(doc({ rules: [shadowDeny] }), facts(gradedTool("kb.search", "read"), "plan"));
    expect(e).toMatchObject({ decision: "allow", ruleIds: ["default.read.plan"] });
    expect(e.shadow).toEqual({ decision: "deny", ruleIds: ["no-bot-search"], reason: "trying it out", shadowRuleIds: ["no-bot-search"] });
  });

  it("decides exactly as the same document without its shadow rules, for every grade and mode", () => {
    const rules = [
      { ...shadowDeny, match: {} },
      { id: "wait-writes", match: { grade: "write" as const }, effect: "require_approval" as const, reason: "w", mode: "shadow" as const },
      { id: "lift-llm-write", match: { grade: "write" as const, mode: "llm" as const }, effect: "allow" as const, reason: "a", mode: "shadow" as const },
    ];
    const principals = { bot: { kind: "agent" as const }, ann: { kind: "human" as const } };
    const withShadows = doc({ principals, rules, llm: { showWrite: ["x.*"] } });
    const without = doc({ principals, llm: { showWrite: ["x.*"] } });
    for (const grade of ["read", "write", "send"] as const) {
      for (const mode of ["human", "plan", "llm"] as const) {
        for (const principal of ["bot", "ann"]) {
          const f = { ...facts(gradedTool(`x.${grade}`, grade), mode), principal };
          const { shadow: _shadow, ...decided } = evaluateCall(withShadows, f);
          expect(decided, `${grade} ${mode} ${principal}`).toEqual(evaluateCall(without, f));
        }
      }
    }
  });

  it("records the would-be decision of a model's call through its would-be view", () => {
    const e = evaluateCall(doc({ rules: [shadowDeny] }), facts(gradedTool("kb.search", "read"), "llm"));
    expect(e.decision).toBe("allow");
    expect(e.shadow).toMatchObject({ decision: "deny", ruleIds: ["view.not_shown", "no-bot-search"], shadowRuleIds: ["no-bot-search"] });
  });

  it("records a shadow rule that agrees too, and nothing for a call no shadow rule matches or a gate refuses", () => {
    const allow = { ...shadowDeny, id: "ok-search", effect: "allow" as const };
    expect(evaluateCall(doc({ rules: [allow] }), facts(gradedTool("kb.search", "read"), "plan")).shadow).toMatchObject({ decision: "allow", shadowRuleIds: ["ok-search"] });
    expect(evaluateCall(doc({ rules: [shadowDeny] }), facts(gradedTool("kb.other", "read"), "plan")).shadow).toBeUndefined();
    // mode human for an agent is refused by a gate before any rule is read
    expect(evaluateCall(doc({ rules: [shadowDeny] }), facts(gradedTool("kb.search", "read"), "human"))).toMatchObject({ decision: "deny", ruleIds: ["gate.human_mode_needs_person"] });
    expect(evaluateCall(doc({ rules: [shadowDeny] }), facts(gradedTool("kb.search", "read"), "human")).shadow).toBeUndefined();
  });
});
