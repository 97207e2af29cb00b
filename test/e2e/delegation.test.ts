import { execFile } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readEvent } from "@warden/bus";
import { createAgentClient } from "@warden/sdk";
import type { SubagentDescriptorInput } from "@warden/subagent";
import { callEvents, eventually } from "@warden/testing";
import { childRequests, outputOf, requestsBy, toolMessages, useSubagentWarden, type SubagentWarden } from "./subagent-fixture.js";

const base = {
  description: "Use when a support question needs looking into with the knowledge base and other helpers.",
  instructions: "You look things up for a support desk.",
};

const AGENTS: SubagentDescriptorInput[] = [
  {
    ...base,
    name: "agent.lead",
    title: "Lead",
    model: "m-lead",
    allowedTools: ["kb.search", "agent.researcher"],
    budget: { maxTurns: 4, maxToolCalls: 3, maxTokens: 5_000, timeoutMs: 20_000 },
  },
  { ...base, name: "agent.researcher", title: "Researcher", model: "m-researcher", allowedTools: ["kb.search"] },
];

const CLI = join(import.meta.dirname, "../../cli/dist/main.js");

/** Runs the warden CLI against the test Warden's home (URL and credentials from there) and parses its one JSON document. */
function cli(args: string[], home: string): Promise<unknown> {
  const { NATS_URL: _url, NATS_CREDS: _creds, ...env } = process.env;
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [CLI, ...args], { env: { ...env, WARDEN_HOME: home } }, (err, stdout) => {
      try {
        resolve(JSON.parse(stdout));
      } catch {
        reject(err ?? new Error(`not JSON: ${stdout}`));
      }
    });
  });
}

/** The policy decision of a call, once made. */
async function decisionOf(s: SubagentWarden, domain: string, callId: string) {
  return eventually(async () => {
    const e = await readEvent(s.w.bus, domain, callId, "ToolPolicyChecked");
    expect(e).toBeDefined();
    return e!.data;
  });
}

describe("delegation: child calls are attenuated by the recorded chain", () => {
  // the caller connects as itself; the admin connection only reads the stream
  const s = useSubagentWarden(AGENTS, {}, async ({ w }) => ({ bot: await w.agent("support-bot", { timeoutMs: 20_000 }) }));

  it("gives a nested subagent no more than its delegator has left, and the policy checks it from the chain", async () => {
    const search = (query: string) => ({ name: "kb__search", arguments: { query } });
    s.model.script("m-lead", [
      { toolCalls: [search("refund"), search("delivery")] },
      { toolCalls: [{ name: "agent__researcher", arguments: { task: "dig into refunds", budget: { maxToolCalls: 8 } } }] },
      { content: "Lead done." },
    ]);
    s.model.script("m-researcher", [{ toolCalls: [search("refund policy")] }]);
    const r = await s.bot.call("agent.lead", { task: "look into refunds" }, { mode: "plan", runId: "run-nested" });
    const lead = outputOf(r);
    expect(lead).toMatchObject({ stoppedBy: "answer", answer: "Lead done." });
    expect(lead.childCalls.map((c) => [c.tool, c.status])).toEqual([
      ["kb.search", "succeeded"],
      ["kb.search", "succeeded"],
      ["agent.researcher", "succeeded"],
    ]);

    const [nested] = (await childRequests(s.w.bus, "agent-lead", r.callId)).filter((c) => c.tool === "agent.researcher");
    expect(nested).toMatchObject({ parentCallId: r.callId, correlationId: "run-nested", mode: "llm" });
    // 3 calls allowed, 2 spent, the call to the researcher is the third: nothing left for it to spend
    const budget = (nested!.data.args as { budget: Record<string, number> }).budget;
    expect(budget["maxToolCalls"]).toBe(0);
    expect(budget["maxTokens"]).toBeLessThanOrEqual(5_000 - 120);
    expect(budget["timeoutMs"]).toBeLessThan(20_000);
    const checked = await decisionOf(s, "agent", nested!.callId);
    expect(checked).toMatchObject({ decision: "allow" });
    expect(checked.ruleIds).toContain("attenuation.checked");

    const researcher = outputOf(await eventually(async () => {
      const e = await readEvent(s.w.bus, "agent", nested!.callId, "ToolCallFinished");
      expect(e).toBeDefined();
      return { ok: e!.data.ok, data: e!.data.output };
    }));
    expect(researcher).toMatchObject({ stoppedBy: "toolCalls", usage: { toolCalls: 0 } });
    expect(researcher.childCalls).toEqual([expect.objectContaining({ status: "refused", error: expect.objectContaining({ code: "BUDGET_EXCEEDED" }) })]);
    expect(await childRequests(s.w.bus, "agent-researcher", nested!.callId)).toEqual([]);
    // the lead's model read the researcher's partial result
    expect(toolMessages(s.model.requestsFor("m-lead").at(-1)!.body).at(-1)).toMatch(/partial result: the tool-call budget/);
  });

  it("denies forged child calls that reach beyond the running delegator's flags, scope, tools, principal or budget", async () => {
    // the model holds the lead's first turn: meanwhile its call is running and its view is recorded
    let release!: () => void;
    s.model.script("m-lead", [{ content: "Finished thinking.", waitFor: new Promise<void>((r) => (release = r)) }]);
    const running = s.bot.call("agent.lead", { task: "think" }, { mode: "plan", runId: "run-forged" });
    const leadCall = await eventually(async () => {
      const [lead] = await requestsBy(s.w.bus, "support-bot", (e) => e.correlationId === "run-forged");
      expect(lead).toBeDefined();
      // its first view is recorded before the model is asked
      expect(await readEvent(s.w.bus, "agent", lead!.callId, "ToolViewCompiled", "t1")).toBeDefined();
      return lead!.callId;
    });
    // only the subagent service's credentials may ask as agent-lead: forged calls come from them
    const asLead = createAgentClient({ bus: await s.w.nats.connectAs(s.identity, "forger"), principal: "agent-lead", mode: "llm", runId: "run-forged" });
    const forged = (tool: string, args: unknown, extra: { flags?: Record<string, boolean>; scope?: string } = {}) =>
      asLead.call(tool, args, { parentCallId: leadCall, ...extra });

    const cases = [
      { what: "a flag the delegator lacks", domain: "kb", r: await forged("kb.search", { query: "x" }, { flags: { kbAdmin: true } }), rule: "attenuation.flag" },
      { what: "a scope the delegator lacks", domain: "kb", r: await forged("kb.search", { query: "x" }, { scope: "ticket_page" }), rule: "attenuation.scope" },
      { what: "a tool never shown to its model", domain: "session", r: await forged("session.fetch", { id: 1 }), rule: "attenuation.tool" },
      { what: "a nested budget beyond what is left", domain: "agent", r: await forged("agent.researcher", { task: "x", budget: { maxToolCalls: 8, maxTokens: 1_000, timeoutMs: 5_000 } }), rule: "attenuation.budget" },
      { what: "another principal", domain: "kb", r: await s.bot.call("kb.search", { query: "x" }, { parentCallId: leadCall, mode: "llm" }), rule: "attenuation.chain" },
      { what: "a parent that does not exist", domain: "kb", r: await asLead.call("kb.search", { query: "x" }, { parentCallId: "no-such-call" }), rule: "attenuation.chain" },
    ];
    for (const c of cases) {
      expect(c.r, c.what).toMatchObject({ ok: false, status: "rejected" });
      const checked = await decisionOf(s, c.domain, c.r.callId);
      expect(checked.decision, c.what).toBe("deny");
      expect(checked.ruleIds[0], c.what).toBe(c.rule);
    }
    const overBudget = cases.find((c) => c.rule === "attenuation.budget")?.r.error;
    expect(overBudget).toMatchObject({ code: "BUDGET_EXCEEDED", message: expect.stringMatching(/asks for 8 tool calls; its delegator has \d left/) });

    const allowed = await forged("kb.search", { query: "refund" });
    expect(allowed).toMatchObject({ ok: true, status: "succeeded" });
    release();
    expect(outputOf(await running)).toMatchObject({ stoppedBy: "answer" });

    // once the delegating call has ended, nothing more runs on its behalf
    const late = await forged("kb.search", { query: "refund" });
    expect(late).toMatchObject({ ok: false, status: "rejected" });
    expect((await decisionOf(s, "kb", late.callId)).ruleIds[0]).toBe("attenuation.chain");
    await asLead.close();
  });

  it("records child calls under their parent: each child's history carries the parent's call id, and warden trace nests them", async () => {
    s.model.script("m-researcher", [{ toolCalls: [{ name: "kb__search", arguments: { query: "password" } }] }, { content: "ok" }]);
    const r = await s.bot.call("agent.researcher", { task: "passwords" }, { mode: "plan" });
    const [child] = outputOf(r).childCalls;
    const events = await callEvents(s.w.bus, child!.callId!);
    expect(events.length).toBeGreaterThanOrEqual(5);
    // warden trace is a read: it runs as an auditor, who may read every call and write nothing
    await s.w.nats.credsOf({ kind: "auditor", name: "auditor" });
    expect(events.every((e) => e.parentCallId === r.callId && e.principal === "agent-researcher")).toBe(true);

    const trace = await eventually(async () => {
      const doc = (await cli(["trace", r.callId, "--json", "--as", "auditor"], s.w.nats.home.dir)) as { children?: { callId: string; parentCallId?: string; tool: string }[] };
      expect(doc.children).toHaveLength(1);
      return doc;
    });
    expect(trace.children?.[0]).toMatchObject({ callId: child!.callId, parentCallId: r.callId, tool: "kb.search" });
  });
});
