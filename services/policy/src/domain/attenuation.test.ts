import { describe, expect, it } from "vitest";
import { type ToolArgsValidated } from "@warden/contracts/events";
import { ToolDescriptorSchema, type ToolDescriptor } from "@warden/contracts/descriptor";
import { agentBudgetJsonSchema, PolicyDocumentSchema, type AgentBudget } from "@warden/contracts/policy";
import { checkChain, checkCounts, type Chain, type ChainFacts, type ChainLink } from "./attenuation.js";

const NOW = 1_000_000;
const doc = PolicyDocumentSchema.parse({
  version: "p1",
  principals: { "support-bot": { kind: "agent" }, alice: { kind: "human", scopes: ["tickets:write"] } },
  rules: [{ id: "bot.no-session", match: { tool: "session.fetch", principal: "support-bot" }, effect: "deny", reason: "the bot never reads sessions" }],
});

const tool = (name: string, extra: object = {}): ToolDescriptor =>
  ToolDescriptorSchema.parse({ name, version: "1.0.0", title: name, description: `Use it for ${name} things.`, inputSchema: { type: "object" }, grade: "read", ...extra });
const agentTool = (name: string, budget: AgentBudget) =>
  tool(name, { inputSchema: { type: "object", properties: { task: { type: "string" }, budget: agentBudgetJsonSchema(budget) } } });

const leadBudget = { maxTurns: 4, maxToolCalls: 3, maxTokens: 5_000, timeoutMs: 20_000 };
const lead: ChainLink = {
  callId: "lead1",
  tool: "agent.lead",
  principal: "support-bot",
  mode: "plan",
  flags: { kbAdmin: true },
  scope: "ticket_page",
  args: { task: "t" },
  descriptor: agentTool("agent.lead", leadBudget),
  startedAtMs: NOW - 5_000,
  ended: false,
  shownTools: ["kb.search", "kb.reindex", "session.fetch", "agent.researcher", "ticket.submit"],
};

function call(name: string, extra: Omit<Partial<ToolArgsValidated>, "data"> & { data?: Partial<ToolArgsValidated["data"]> } = {}): ToolArgsValidated {
  const { data, ...rest } = extra;
  return {
    v: 1,
    type: "ToolArgsValidated",
    eventId: "e2",
    callId: "child1",
    domain: name.split(".")[0]!,
    tool: name,
    principal: "agent-lead",
    mode: "llm",
    ts: new Date(NOW).toISOString(),
    causationId: "e1",
    causeHash: `sha256:${"c".repeat(64)}`,
    correlationId: "run1",
    parentCallId: "lead1",
    ...rest,
    data: { version: "1.0.0", descriptorHash: `sha256:${"a".repeat(64)}`, grade: "read", argsHash: `sha256:${"b".repeat(64)}`, args: {}, scope: null, flags: {}, ...data },
  };
}

const allow = { decision: "allow" as const, ruleIds: ["default.read.llm"], reason: "read" };
const facts = (c: ToolArgsValidated, t: ToolDescriptor, chain: Chain = { kind: "found", links: [lead], tooDeep: false }): ChainFacts => ({
  doc,
  call: c,
  tool: t,
  verdict: allow,
  chain,
  nowMs: NOW,
});
const ruleOf = (f: ChainFacts) => {
  const r = checkChain(f);
  return r.kind === "deny" ? r.verdict.ruleIds[0] : "pass";
};

describe("checkChain", () => {
  it("passes a child call within its delegator's flags, scope and shown tools, and counts it against the subagent", () => {
    const r = checkChain(facts(call("kb.search", { data: { flags: { kbAdmin: true }, scope: "ticket_page" } }), tool("kb.search")));
    expect(r).toMatchObject({ kind: "pass", verdict: { decision: "allow", ruleIds: ["default.read.llm", "attenuation.checked"] } });
    expect(r.kind === "pass" && r.agents).toEqual([{ callId: "lead1", budget: leadBudget }]);
  });

  it("refuses a flag or a scope the delegating call does not have", () => {
    expect(ruleOf(facts(call("kb.search", { data: { flags: { beta: true } } }), tool("kb.search")))).toBe("attenuation.flag");
    expect(ruleOf(facts(call("kb.search", { data: { flags: { beta: false } } }), tool("kb.search")))).toBe("pass");
    expect(ruleOf(facts(call("kb.search", { data: { scope: "billing_page" } }), tool("kb.search")))).toBe("attenuation.scope");
  });

  it("passes a flagged tool only when every delegating principal holds the flag from the document and did not turn it off", () => {
    const reindex = tool("kb.reindex", { featureFlag: "kbAdmin" });
    const granted = (principals: object) => PolicyDocumentSchema.parse({ version: "p2", principals });
    const both = granted({ "support-bot": { kind: "agent", flags: { kbAdmin: true } }, "agent-lead": { kind: "agent", flags: { kbAdmin: true } } });
    const childOnly = granted({ "support-bot": { kind: "agent" }, "agent-lead": { kind: "agent", flags: { kbAdmin: true } } });
    const withDoc = (d: typeof doc, links: readonly ChainLink[] = [lead]): ChainFacts => ({
      ...facts(call("kb.reindex"), reindex, { kind: "found", links, tooDeep: false }),
      doc: d,
    });
    expect(ruleOf(withDoc(both))).toBe("pass");
    expect(ruleOf(withDoc(both, [{ ...lead, flags: {} }]))).toBe("pass");
    // the delegator asked for the flag, but the document never gave it to support-bot
    expect(ruleOf(withDoc(childOnly))).toBe("attenuation.flag");
    const refused = checkChain(withDoc(childOnly));
    expect(refused.kind === "deny" && refused.verdict.reason).toMatch(/kbAdmin is not held by support-bot on the delegating call lead1/);
    // the delegator turned the flag off for its call; its subagent's children cannot turn it back on
    expect(ruleOf(withDoc(both, [{ ...lead, flags: { kbAdmin: false } }]))).toBe("attenuation.flag");
  });

  it("refuses a parent that is missing, not running, or whose children come from another principal or mode", () => {
    expect(ruleOf(facts(call("kb.search"), tool("kb.search"), { kind: "missing", callId: "x" }))).toBe("attenuation.chain");
    expect(ruleOf(facts(call("kb.search"), tool("kb.search"), { kind: "found", links: [{ ...lead, ended: true }], tooDeep: false }))).toBe("attenuation.chain");
    expect(ruleOf(facts(call("kb.search"), tool("kb.search"), { kind: "found", links: [{ ...lead, startedAtMs: undefined }], tooDeep: false }))).toBe("attenuation.chain");
    expect(ruleOf(facts(call("kb.search", { principal: "support-bot" }), tool("kb.search")))).toBe("attenuation.chain");
    expect(ruleOf(facts(call("kb.search", { mode: "plan" }), tool("kb.search")))).toBe("attenuation.chain");
  });

  it("refuses a tool never shown to the subagent's model, and a delegation it does not allow", () => {
    expect(ruleOf(facts(call("demo.big"), tool("demo.big")))).toBe("attenuation.tool");
    expect(ruleOf(facts(call("agent.other"), agentTool("agent.other", leadBudget)))).toBe("attenuation.delegation");
  });

  it("decides the call as every delegating principal too: their denials and approvals hold", () => {
    const denied = checkChain(facts(call("session.fetch"), tool("session.fetch")));
    expect(denied).toMatchObject({ kind: "deny", verdict: { ruleIds: ["attenuation.tool", "bot.no-session"] } });
    expect(denied.kind === "deny" && denied.verdict.reason).toMatch(/^support-bot, who delegated this call, may not make it/);
    const scoped = tool("kb.search", { requiredScopes: ["tickets:write"] });
    expect(ruleOf(facts(call("kb.search"), scoped))).toBe("attenuation.tool");
    const write = tool("ticket.submit", { grade: "write", description: "Use it to file a ticket for follow-up." });
    const tightened = checkChain({ ...facts(call("ticket.submit"), write), verdict: { decision: "allow", ruleIds: ["rule.allow-bot"], reason: "allowed" } });
    expect(tightened).toMatchObject({ kind: "pass", verdict: { decision: "require_approval" } });
    expect(tightened.kind === "pass" && tightened.verdict.ruleIds).toContain("attenuation.tool");
  });

  it("says the call runs on behalf of the principal at the top of the chain, however deep", () => {
    const direct = checkChain(facts(call("kb.search"), tool("kb.search")));
    expect(direct).toMatchObject({ kind: "pass", verdict: { onBehalfOf: "support-bot" } });
    // lead1 (by alice) delegated to agent.researcher (by agent-lead), which makes the call
    const nested: ChainLink = { ...lead, callId: "res1", tool: "agent.lead", principal: "agent-lead", mode: "llm", parentCallId: "lead1" };
    const top: ChainLink = { ...lead, principal: "alice" };
    const deep = checkChain(facts(call("kb.search"), tool("kb.search"), { kind: "found", links: [nested, top], tooDeep: false }));
    expect(deep).toMatchObject({ kind: "pass", verdict: { onBehalfOf: "alice" } });
  });

  it("caps the delegation depth, counting every delegating call above", () => {
    const link = (i: number): ChainLink => ({ ...lead, callId: `a${i}`, tool: "agent.lead", principal: "agent-lead" });
    const chain = (n: number): Chain => ({ kind: "found", links: Array.from({ length: n }, (_, i) => link(i)), tooDeep: false });
    expect(ruleOf(facts(call("kb.search"), tool("kb.search"), chain(3)))).toBe("pass");
    expect(ruleOf(facts(call("agent.researcher", { data: { args: { task: "t" } } }), agentTool("agent.researcher", { ...leadBudget, maxToolCalls: 0, maxTokens: 100, timeoutMs: 1_000 }), chain(3)))).toBe("attenuation.depth");
    expect(ruleOf(facts(call("kb.search"), tool("kb.search"), { kind: "found", links: [link(0)], tooDeep: true }))).toBe("attenuation.depth");
  });

  it("refuses calls once the delegating subagent's time is spent, and a nested budget beyond what it has", () => {
    const late = { ...lead, startedAtMs: NOW - 25_000 };
    expect(ruleOf(facts(call("kb.search"), tool("kb.search"), { kind: "found", links: [late], tooDeep: false }))).toBe("attenuation.budget");
    const researcher = agentTool("agent.researcher", { maxTurns: 4, maxToolCalls: 8, maxTokens: 50_000, timeoutMs: 120_000 });
    const nested = (budget: Record<string, number>) => facts(call("agent.researcher", { data: { args: { task: "t", budget } } }), researcher);
    expect(ruleOf(nested({}))).toBe("attenuation.budget");
    expect(ruleOf(nested({ maxTokens: 5_000, timeoutMs: 30_000 }))).toBe("attenuation.budget");
    const fits = checkChain(nested({ maxTokens: 5_000, timeoutMs: 15_000, maxToolCalls: 1 }));
    expect(fits).toMatchObject({ kind: "pass", childBudget: { maxToolCalls: 1, maxTokens: 5_000, timeoutMs: 15_000 } });
    const unreadable = { ...lead, descriptor: tool("agent.lead") };
    expect(ruleOf(facts(call("kb.search"), tool("kb.search"), { kind: "found", links: [unreadable], tooDeep: false }))).toBe("attenuation.budget");
  });
});

describe("checkCounts", () => {
  const agents = [{ callId: "lead1", budget: leadBudget }];

  it("refuses a call beyond the delegating subagent's tool calls", () => {
    expect(checkCounts(agents, [3], undefined, "kb.search")).toBeUndefined();
    expect(checkCounts(agents, [4], undefined, "kb.search")).toMatchObject({ decision: "deny", ruleIds: ["attenuation.budget"] });
  });

  it("gives a nested subagent no more calls than are left after the call to it", () => {
    const child = { maxTurns: 4, maxToolCalls: 1, maxTokens: 100, timeoutMs: 1_000 };
    expect(checkCounts(agents, [2], child, "agent.researcher")).toBeUndefined();
    expect(checkCounts(agents, [3], child, "agent.researcher")?.reason).toBe("agent.researcher asks for 1 tool calls; its delegator has 0 left");
  });
});
