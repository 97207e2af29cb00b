import { describe, expect, it } from "vitest";
import {
  CALL_MODES,
  GRADES,
  ToolDescriptorSchema,
  type CallMode,
  type Grade,
  type ToolDescriptorInput,
} from "@warden/contracts/descriptor";
import { PolicyDocumentSchema, type PolicyDocumentInput } from "@warden/contracts/policy";
import { DEFAULT_TABLE, evaluatePolicy, type CallFacts } from "./evaluate.js";

function tool(over: Partial<ToolDescriptorInput> = {}) {
  return ToolDescriptorSchema.parse({
    name: "kb.search",
    version: "1.0.0",
    title: "Search",
    description: "Use it to search the knowledge base for articles.",
    inputSchema: { type: "object" },
    grade: "read",
    ...over,
  });
}

/** alice and bob are people: only a principal the document names as human may use mode human. */
function doc(over: Partial<PolicyDocumentInput> = {}) {
  return PolicyDocumentSchema.parse({ version: "t1", principals: { alice: { kind: "human" }, bob: { kind: "human" } }, ...over });
}

function facts(over: Partial<CallFacts> & { grade?: Grade } = {}): CallFacts {
  const { grade, ...rest } = over;
  return { tool: tool({ grade: grade ?? "read" }), principal: "alice", mode: "human", flags: {}, scope: null, ...rest };
}

describe("the default table", () => {
  const expected: Record<Grade, Record<CallMode, string>> = {
    read: { human: "allow", plan: "allow", llm: "allow" },
    write: { human: "allow", plan: "allow", llm: "require_approval" },
    // DESIGN's table said deny for a model's send; it waits for a person instead (never listed, never run on the model's word)
    send: { human: "require_approval", plan: "require_approval", llm: "require_approval" },
  };
  for (const grade of GRADES) {
    for (const mode of CALL_MODES) {
      it(`decides ${grade} in ${mode} mode as ${expected[grade][mode]}`, () => {
        const r = evaluatePolicy(doc(), facts({ grade, mode }));
        expect(DEFAULT_TABLE[grade][mode]).toBe(expected[grade][mode]);
        expect(r.decision).toBe(expected[grade][mode]);
        expect(r.ruleIds[0]).toBe(`default.${grade}.${mode}`);
        expect(r.reason.length).toBeGreaterThan(0);
      });
    }
  }
});

describe("the gates", () => {
  it("allows a flagged tool to a principal the document grants the flag, whether or not the call repeats it", () => {
    const d = doc({ principals: { alice: { kind: "human", flags: { kbAdmin: true } } } });
    for (const flags of [{}, { kbAdmin: true }] as Record<string, boolean>[]) {
      expect(evaluatePolicy(d, facts({ tool: tool({ featureFlag: "kbAdmin" }), flags })).decision).toBe("allow");
    }
  });

  it("refuses a flagged tool when the call turns off a flag the document grants", () => {
    const d = doc({ principals: { alice: { kind: "human", flags: { kbAdmin: true } } } });
    const r = evaluatePolicy(d, facts({ tool: tool({ featureFlag: "kbAdmin" }), flags: { kbAdmin: false } }));
    expect(r).toMatchObject({ decision: "deny", ruleIds: ["gate.feature_flag"], gate: "gate.feature_flag" });
    expect(r.reason).toMatch(/turns it off/);
  });

  it("refuses a flagged tool when the document does not grant the flag, even if the call sets it", () => {
    const granted = { kind: "human" as const, flags: { kbAdmin: false, beta: true } };
    for (const d of [doc(), doc({ principals: { alice: granted } })]) {
      for (const flags of [{}, { kbAdmin: true }, { kbAdmin: false }] as Record<string, boolean>[]) {
        const r = evaluatePolicy(d, facts({ tool: tool({ featureFlag: "kbAdmin" }), flags }));
        expect(r).toMatchObject({ decision: "deny", ruleIds: ["gate.feature_flag"], gate: "gate.feature_flag" });
        expect(r.reason).toMatch(/does not grant it to alice/);
      }
    }
  });

  it("refuses a flagged tool to a principal the document does not name, whatever flags its call sets", () => {
    const r = evaluatePolicy(doc(), facts({ tool: tool({ featureFlag: "kbAdmin" }), principal: "mallory", mode: "plan", flags: { kbAdmin: true } }));
    expect(r).toMatchObject({ decision: "deny", ruleIds: ["gate.feature_flag"] });
  });

  it("does not let one principal's flag open a tool for another", () => {
    const d = doc({ principals: { alice: { kind: "human" }, ops: { kind: "agent", flags: { kbAdmin: true } } } });
    const t = tool({ featureFlag: "kbAdmin" });
    expect(evaluatePolicy(d, facts({ tool: t, principal: "ops", mode: "plan" })).decision).toBe("allow");
    expect(evaluatePolicy(d, facts({ tool: t, flags: { kbAdmin: true } })).decision).toBe("deny");
  });

  it("allows a scoped tool called from one of its scopes", () => {
    const r = evaluatePolicy(doc(), facts({ tool: tool({ scopes: ["ticket_page"], grade: "write" }), scope: "ticket_page" }));
    expect(r.decision).toBe("allow");
  });

  it("refuses a scoped tool called from another scope or from none", () => {
    for (const scope of ["home", null]) {
      const r = evaluatePolicy(doc(), facts({ tool: tool({ scopes: ["ticket_page"] }), scope }));
      expect(r).toMatchObject({ decision: "deny", ruleIds: ["gate.scope"] });
    }
  });

  it("allows a tool with required scopes to a principal holding all of them", () => {
    const d = doc({ principals: { alice: { kind: "human", scopes: ["crm:read", "crm:write"] } } });
    const r = evaluatePolicy(d, facts({ tool: tool({ requiredScopes: ["crm:read"] }) }));
    expect(r.decision).toBe("allow");
  });

  it("refuses a tool with required scopes to a principal missing one, and to an unknown principal", () => {
    const d = doc({ principals: { alice: { kind: "human", scopes: ["crm:read"] } } });
    const t = tool({ requiredScopes: ["crm:read", "crm:write"] });
    expect(evaluatePolicy(d, facts({ tool: t }))).toMatchObject({ decision: "deny", ruleIds: ["gate.principal_scope"] });
    expect(evaluatePolicy(d, facts({ tool: t, principal: "mallory", mode: "plan" }))).toMatchObject({ decision: "deny", ruleIds: ["gate.principal_scope"] });
  });

  it("makes a model's send wait for a person even when a rule allows it: no rule lifts it", () => {
    const d = doc({ rules: [{ id: "allow-all", effect: "allow", reason: "open", match: {} }] });
    const r = evaluatePolicy(d, facts({ grade: "send", mode: "llm" }));
    expect(r).toMatchObject({ decision: "require_approval", ruleIds: ["default.send.llm"] });
    expect(r.reason).toMatch(/never listed for it and never runs on its word: a person must confirm it/);
    expect(r.gate).toBeUndefined();
  });

  it("lets the document refuse a model's send (a deny rule tightens it), and its gates still refuse it first", () => {
    const d = doc({ rules: [{ id: "no-model-sends", effect: "deny", reason: "models send nothing here", match: { grade: ["send"], mode: ["llm"] } }] });
    expect(evaluatePolicy(d, facts({ grade: "send", mode: "llm" }))).toMatchObject({ decision: "deny", ruleIds: ["no-model-sends"] });
    expect(evaluatePolicy(d, facts({ grade: "send", mode: "plan" }))).toMatchObject({ decision: "require_approval", ruleIds: ["default.send.plan"] });
    const flagged = evaluatePolicy(doc(), facts({ tool: tool({ grade: "send", featureFlag: "beta" }), mode: "llm" }));
    expect(flagged).toMatchObject({ decision: "deny", ruleIds: ["gate.feature_flag"] });
  });

  it("never allows a model's send, whatever allow and require_approval rules the document has", () => {
    const allows = [
      { id: "allow-all", effect: "allow" as const, reason: "open", match: {} },
      { id: "allow-sends", effect: "allow" as const, reason: "open", match: { grade: ["send" as const], mode: ["llm" as const] } },
      { id: "approve-sends", effect: "require_approval" as const, reason: "ask", match: { grade: ["send" as const] } },
    ];
    for (let n = 0; n < 1 << allows.length; n++) {
      const d = doc({ rules: allows.filter((_, i) => (n & (1 << i)) !== 0) });
      for (const level of [undefined, "L4", "L5"] as const) {
        const t = tool({ grade: "send", ...(level === undefined ? {} : { level }) });
        expect(evaluatePolicy(d, facts({ tool: t, mode: "llm", principal: "bot" })).decision, `${n} ${level}`).toBe("require_approval");
      }
    }
  });

  it("checks the gates before any allow rule", () => {
    const d = doc({ rules: [{ id: "allow-all", effect: "allow", reason: "open", match: {} }] });
    const r = evaluatePolicy(d, facts({ tool: tool({ featureFlag: "beta" }) }));
    expect(r.ruleIds).toEqual(["gate.feature_flag"]);
  });
});

describe("the document's rules", () => {
  it("lets a deny rule win over allow and require_approval rules that also match", () => {
    const d = doc({
      rules: [
        { id: "ok", effect: "allow", reason: "fine", match: { tool: "kb.*" } },
        { id: "ask", effect: "require_approval", reason: "ask first", match: { domain: "kb" } },
        { id: "no", effect: "deny", reason: "kb is closed", match: { grade: "read" } },
      ],
    });
    const r = evaluatePolicy(d, facts());
    expect(r).toMatchObject({ decision: "deny", ruleIds: ["no"], reason: "kb is closed" });
  });

  it("tightens an allowed call with a require_approval rule", () => {
    const d = doc({ rules: [{ id: "ask-bob", effect: "require_approval", reason: "bob asks first", match: { principal: "bob" } }] });
    expect(evaluatePolicy(d, facts({ principal: "bob" }))).toMatchObject({ decision: "require_approval", ruleIds: ["ask-bob"] });
    expect(evaluatePolicy(d, facts({ principal: "alice" }))).toMatchObject({ decision: "allow", ruleIds: ["default.read.human"] });
  });

  it("lifts a write's approval for a model with an explicit allow rule", () => {
    const d = doc({ rules: [{ id: "fill-ok", effect: "allow", reason: "drafts are harmless", match: { tool: "ticket.fill" } }] });
    const r = evaluatePolicy(d, facts({ tool: tool({ name: "ticket.fill", grade: "write" }), mode: "llm" }));
    expect(r).toMatchObject({ decision: "allow", ruleIds: ["fill-ok"] });
  });

  it("never lifts a send's approval with an allow rule", () => {
    const d = doc({ rules: [{ id: "send-ok", effect: "allow", reason: "trust me", match: { grade: "send" } }] });
    for (const mode of ["human", "plan"] as const) {
      const r = evaluatePolicy(d, facts({ grade: "send", mode }));
      expect(r).toMatchObject({ decision: "require_approval", ruleIds: [`default.send.${mode}`] });
    }
  });

  it("does not lift an approval when a require_approval rule also matches", () => {
    const d = doc({
      rules: [
        { id: "ok", effect: "allow", reason: "fine", match: { grade: "write" } },
        { id: "ask", effect: "require_approval", reason: "ask", match: { mode: "llm" } },
      ],
    });
    const r = evaluatePolicy(d, facts({ grade: "write", mode: "llm" }));
    expect(r).toMatchObject({ decision: "require_approval", ruleIds: ["default.write.llm", "ask"] });
  });

  it("ignores rules that do not match the call", () => {
    const d = doc({
      rules: [
        { id: "other-tool", effect: "deny", reason: "x", match: { tool: "crm.*" } },
        { id: "other-mode", effect: "deny", reason: "x", match: { mode: ["plan", "llm"] } },
        { id: "other-principal", effect: "deny", reason: "x", match: { principal: "bo*" } },
      ],
    });
    expect(evaluatePolicy(d, facts()).decision).toBe("allow");
    expect(evaluatePolicy(d, facts({ principal: "bob" })).ruleIds).toEqual(["other-principal"]);
  });
});

describe("who may claim mode human (regression: an agent claiming a person's button skipped approval)", () => {
  const d = doc({ principals: { bot: { kind: "agent" }, svc: { kind: "service" }, alice: { kind: "human" } } });

  it("denies mode human to a principal the document names as an agent or a service", () => {
    for (const principal of ["bot", "svc"]) {
      const e = evaluatePolicy(d, facts({ principal, grade: "write", mode: "human" }));
      expect(e).toMatchObject({ decision: "deny", ruleIds: ["gate.human_mode_needs_person"], gate: "gate.human_mode_needs_person" });
      expect(e.reason).toContain(principal);
    }
  });

  it("denies mode human to a principal the document does not name, since it is treated as an agent", () => {
    for (const grade of GRADES) {
      const e = evaluatePolicy(d, facts({ principal: "mallory", grade, mode: "human" }));
      expect(e).toMatchObject({ decision: "deny", ruleIds: ["gate.human_mode_needs_person"], gate: "gate.human_mode_needs_person" });
      expect(e.reason).toMatch(/mallory is not named in the policy document/);
    }
  });

  it("denies mode human to an unnamed principal even when an allow rule matches it", () => {
    const open = doc({ rules: [{ id: "allow-all", effect: "allow", reason: "open", match: {} }] });
    expect(evaluatePolicy(open, facts({ principal: "mallory", grade: "write", mode: "human" })).ruleIds).toEqual(["gate.human_mode_needs_person"]);
  });

  it("lets a person named in the document act in human mode, and anyone act in plan or llm mode", () => {
    expect(evaluatePolicy(d, facts({ principal: "alice", grade: "write", mode: "human" })).decision).toBe("allow");
    expect(evaluatePolicy(d, facts({ principal: "bot", grade: "write", mode: "plan" })).decision).toBe("allow");
    expect(evaluatePolicy(d, facts({ principal: "walk-in", grade: "write", mode: "plan" })).decision).toBe("allow");
    expect(evaluatePolicy(d, facts({ principal: "walk-in", grade: "read", mode: "llm" })).decision).toBe("allow");
  });
});

describe("the L5 default", () => {
  it("makes a destructive or admin write wait for a person in every mode, and no allow rule lifts it", () => {
    const erase = tool({ grade: "write", destructive: true, description: "Use when a record must go; it cannot be restored." });
    for (const mode of ["human", "plan"] as const) {
      expect(evaluatePolicy(doc(), facts({ tool: erase, mode }))).toEqual({ decision: "require_approval", ruleIds: [`default.level.L5.${mode}`], reason: "destructive or admin (L5): a person confirms it, whoever asks" });
    }
    expect(evaluatePolicy(doc(), facts({ tool: tool({ grade: "write", actionType: "admin" }), mode: "plan" })).decision).toBe("require_approval");
    const lifted = doc({ rules: [{ id: "let-it", match: { tool: "kb.*" }, effect: "allow", reason: "trust it" }] });
    expect(evaluatePolicy(lifted, facts({ tool: erase, mode: "plan" })).decision).toBe("require_approval");
    // a plain write is still the table's
    expect(evaluatePolicy(doc(), facts({ tool: tool({ grade: "write" }), mode: "plan" })).decision).toBe("allow");
  });
});

describe("the L4 default", () => {
  const sync = tool({ grade: "write", openWorld: true, description: "Use when the CRM must get the ticket; others see it there later." });
  const deploy = tool({ grade: "write", actionType: "deploy", description: "Use when a reviewed build goes live; users get it at once." });

  it("makes an external write (open-world write, deploy) wait for a person in plan and human modes too", () => {
    for (const t of [sync, deploy]) {
      for (const mode of ["human", "plan"] as const) {
        expect(evaluatePolicy(doc(), facts({ tool: t, mode }))).toEqual({
          decision: "require_approval",
          ruleIds: [`default.level.L4.${mode}`],
          reason: "external write (L4): a person confirms it, unless the policy document allows it",
        });
      }
    }
    // a model's write already waits, by the table's own rule
    expect(evaluatePolicy(doc({ llm: { showWrite: ["kb.*"] } }), facts({ tool: sync, mode: "llm" })).ruleIds).toEqual(["default.write.llm"]);
  });

  it("lets an allow rule of the document lift it, unlike L5, and names that rule", () => {
    const allowed = doc({ rules: [{ id: "crm-sync-ok", match: { level: "L4", mode: "plan" }, effect: "allow", reason: "the nightly plan syncs the CRM" }] });
    expect(evaluatePolicy(allowed, facts({ tool: sync, mode: "plan" }))).toEqual({ decision: "allow", ruleIds: ["crm-sync-ok"], reason: "the nightly plan syncs the CRM" });
    expect(evaluatePolicy(allowed, facts({ tool: sync, mode: "human" })).decision).toBe("require_approval");
    // a send stays the table's: an allow never lifts it
    const send = tool({ grade: "send", actionType: "external_send", openWorld: true, description: "Use when the customer must be told; they read it at once." });
    expect(evaluatePolicy(doc({ rules: [{ id: "x", match: {}, effect: "allow", reason: "x" }] }), facts({ tool: send, mode: "plan" })).ruleIds).toEqual(["default.send.plan"]);
  });
});

describe("the L1 default", () => {
  const sum = (over: Partial<ToolDescriptorInput> = {}) => tool({ actionType: "compute", description: "Use it to total the invoice lines you have.", ...over });

  it("runs a model's local compute without asking only inside a sandbox (a process with no network)", () => {
    expect(evaluatePolicy(doc(), facts({ tool: sum({ network: "none" }), mode: "llm" }))).toMatchObject({ decision: "allow", ruleIds: ["default.read.llm"] });
    // a process its manifest marks trusted runs outside the tools' sandbox, network or not
    for (const outside of [sum(), sum({ network: "host" }), sum({ network: "none", unconfined: true })]) {
      expect(evaluatePolicy(doc(), facts({ tool: outside, mode: "llm" }))).toEqual({
        decision: "require_approval",
        ruleIds: ["default.level.L1.llm"],
        reason: "local compute (L1) outside a sandbox: a person confirms a model's call, unless the policy document allows it",
      });
    }
    // a person or a fixed plan chose the call: the grade's table decides
    expect(evaluatePolicy(doc(), facts({ tool: sum(), mode: "plan" })).decision).toBe("allow");
    // a plain read is L0, not compute
    expect(evaluatePolicy(doc(), facts({ tool: tool(), mode: "llm" })).decision).toBe("allow");
  });

  it("lets an allow rule lift it for an in-process tool the document trusts", () => {
    const trusted = doc({ rules: [{ id: "sum-in-process", match: { tool: "kb.search", level: "L1" }, effect: "allow", reason: "our own code, reviewed" }] });
    expect(evaluatePolicy(trusted, facts({ tool: sum(), mode: "llm" }))).toEqual({ decision: "allow", ruleIds: ["sum-in-process"], reason: "our own code, reviewed" });
  });
});

describe("the L3 default", () => {
  const lookup = (over: Partial<ToolDescriptorInput> = {}) => tool({ openWorld: true, description: "Use it to look a company up in the public registry.", ...over });
  const scoped = (scopes: string[]) => doc({ principals: { alice: { kind: "human" }, bot: { kind: "agent", scopes } } });

  it("gives a model an external read only with a scope: the tool's own, else external_read", () => {
    expect(evaluatePolicy(scoped([]), facts({ tool: lookup(), principal: "bot", mode: "llm" }))).toMatchObject({
      decision: "deny",
      gate: "gate.level.L3.scope",
      reason: "an external read (L3) by a model needs a scope: kb.search requires none of its own, and bot lacks external_read",
    });
    expect(evaluatePolicy(scoped(["external_read"]), facts({ tool: lookup(), principal: "bot", mode: "llm" })).decision).toBe("allow");
    // a tool naming its own scope is gated by that one alone
    const own = lookup({ requiredScopes: ["registry:read"] });
    expect(evaluatePolicy(scoped(["external_read"]), facts({ tool: own, principal: "bot", mode: "llm" })).gate).toBe("gate.principal_scope");
    expect(evaluatePolicy(scoped(["registry:read"]), facts({ tool: own, principal: "bot", mode: "llm" })).decision).toBe("allow");
  });

  it("leaves a person's and a fixed plan's external reads to the table, and local reads alone", () => {
    expect(evaluatePolicy(scoped([]), facts({ tool: lookup(), principal: "bot", mode: "plan" })).decision).toBe("allow");
    expect(evaluatePolicy(scoped([]), facts({ tool: lookup(), mode: "human" })).decision).toBe("allow");
    expect(evaluatePolicy(scoped([]), facts({ tool: tool(), principal: "bot", mode: "llm" })).decision).toBe("allow");
  });
});

describe("rules that match on action type, level and flags", () => {
  const rules = doc({
    rules: [
      { id: "no-deletes", match: { actionType: "delete" }, effect: "deny", reason: "nobody deletes here" },
      { id: "l4-person", match: { level: ["L4", "L5"] }, effect: "require_approval", reason: "outside changes wait for a person" },
      { id: "outside-reads", match: { openWorld: true, grade: "read" }, effect: "require_approval", reason: "outside reads are confirmed" },
    ],
  });
  const decide = (over: Partial<ToolDescriptorInput>, mode: CallMode = "plan") => evaluatePolicy(rules, facts({ tool: tool(over), mode }));

  it("matches a declared action type, the declared or derived level, and the flags", () => {
    expect(decide({ grade: "write", actionType: "delete", destructive: true })).toMatchObject({ decision: "deny", ruleIds: expect.arrayContaining(["no-deletes"]) });
    expect(decide({ grade: "write", openWorld: true })).toMatchObject({ decision: "require_approval", ruleIds: ["default.level.L4.plan", "l4-person"] });
    expect(decide({ grade: "write", level: "L4" })).toMatchObject({ decision: "require_approval", ruleIds: expect.arrayContaining(["l4-person"]) });
    expect(decide({ openWorld: true })).toMatchObject({ decision: "require_approval", ruleIds: expect.arrayContaining(["outside-reads"]) });
    expect(decide({ grade: "write" })).toMatchObject({ decision: "allow" });
    // a tool that declares no action type is matched by no actionType rule
    expect(decide({ grade: "write", destructive: true })).toMatchObject({ decision: "require_approval", ruleIds: expect.not.arrayContaining(["no-deletes"]) });
  });
});
