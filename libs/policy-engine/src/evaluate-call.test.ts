import { describe, expect, it } from "vitest";
import { PolicyDocumentSchema, ToolDescriptorSchema, type CallMode, type Grade, type PolicyDocumentInput } from "@warden/contracts";
import { evaluateCall } from "./evaluate-call.js";
import { toolVisibility } from "./visibility.js";

function tool(name: string, grade: Grade) {
  return ToolDescriptorSchema.parse({
    name,
    version: "1.0.0",
    title: name,
    description: "Use it when the test needs a tool of this grade.",
    inputSchema: { type: "object" },
    grade,
  });
}

const doc = (over: Partial<PolicyDocumentInput> = {}) => PolicyDocumentSchema.parse({ version: "t1", principals: { bot: { kind: "agent" } }, ...over });
const facts = (t: ReturnType<typeof tool>, mode: CallMode) => ({ tool: t, principal: "bot", mode, flags: {}, scope: null });

describe("evaluateCall", () => {
  it("denies a model's call to a write tool its view does not list with view.not_shown", () => {
    const e = evaluateCall(doc(), facts(tool("ticket.submit", "write"), "llm"));
    expect(e).toMatchObject({ decision: "deny", ruleIds: ["view.not_shown", "llm.show_write"] });
    expect(e.reason).toMatch(/not in this caller's tool view/);
  });

  it("asks a person for a model's write the document shows it", () => {
    const e = evaluateCall(doc({ llm: { showWrite: ["ticket.*"] } }), facts(tool("ticket.submit", "write"), "llm"));
    expect(e).toMatchObject({ decision: "require_approval", ruleIds: ["default.write.llm"] });
  });

  it("denies a model's send as not shown, naming the invariant too", () => {
    expect(evaluateCall(doc(), facts(tool("customer.message", "send"), "llm"))).toMatchObject({
      decision: "deny",
      ruleIds: ["view.not_shown", "invariant.send_never_llm"],
    });
  });

  it("lets a model call a shown read tool, and leaves plan mode to the table", () => {
    expect(evaluateCall(doc(), facts(tool("kb.search", "read"), "llm"))).toMatchObject({ decision: "allow", ruleIds: ["default.read.llm"] });
    expect(evaluateCall(doc(), facts(tool("ticket.submit", "write"), "plan"))).toMatchObject({ decision: "allow", ruleIds: ["default.write.plan"] });
  });

  it("agrees with toolVisibility for every grade and mode: a model's call is denied exactly when its view hides the tool", () => {
    for (const grade of ["read", "write", "send"] as const) {
      const t = tool(`x.${grade}`, grade);
      const shown = toolVisibility(doc(), t, facts(t, "llm")).visible;
      expect(evaluateCall(doc(), facts(t, "llm")).decision === "deny", grade).toBe(!shown);
    }
  });
});
