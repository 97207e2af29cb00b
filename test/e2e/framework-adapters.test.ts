import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent, OpenAIProvider, Runner, RunState, setTracingDisabled } from "@openai/agents";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { generateText, stepCountIs } from "ai";
import type { Bus } from "@warden/bus";
import { STREAM_CALLS } from "@warden/contracts/subjects";
import { wardenTools as aiTools } from "@warden/sdk/ai";
import { wardenTools as agentsTools } from "@warden/sdk/openai-agents";
import { startScriptedOpenAi, type ScriptedOpenAi } from "@warden/testing";
import { cardIn } from "../support/approval-cards.js";
import { startTestWarden, type TestWarden } from "../support/warden.js";

/** How many times support-bot asked for a tool: the ToolCallRequested subjects of its domain. */
async function requestsOf(bus: Bus, domain: string): Promise<number> {
  const info = await bus.jsm.streams.info(STREAM_CALLS, { subjects_filter: `warden.call.${domain}.*.ToolCallRequested.support-bot` });
  return Object.values(info.state.subjects ?? {}).reduce((n, c) => n + c, 0);
}

describe("framework adapters: wardenTools() for the OpenAI Agents SDK and the Vercel AI SDK, against a scripted model and a real Warden", { timeout: 90_000 }, () => {
  let w: TestWarden;
  let model: ScriptedOpenAi;

  beforeAll(async () => {
    // the Agents SDK would otherwise export traces to OpenAI
    setTracingDisabled(true);
    w = await startTestWarden({ demo: true });
    model = await startScriptedOpenAi();
  }, 60_000);

  afterAll(async () => {
    await model?.stop();
    await w?.stop();
  });

  it("runs an Agents SDK agent: its read runs, its write interrupts for approval and resumes after a person approves, as one Warden call", async () => {
    const client = await w.agent("support-bot", { mode: "llm" });
    const warden = await agentsTools(client, { scope: "ticket_page", timeoutMs: 20_000 });
    expect(warden.ok).toBe(true);
    if (!warden.ok) return;
    const names = warden.value.tools.map((t) => t.name);
    expect(names).toContain("kb__search");
    expect(names).toContain("ticket__fill");
    expect(names).not.toContain("customer__message");

    model.script("agents-model", [
      { toolCalls: [{ id: "call_read", name: "kb__search", arguments: { query: "refund" } }] },
      { toolCalls: [{ id: "call_write", name: "ticket__fill", arguments: { ticketId: "T-42", fields: { priority: "high" } } }] },
      { content: "Filled in the ticket draft." },
    ]);
    const runner = new Runner({ modelProvider: new OpenAIProvider({ baseURL: model.baseURL, apiKey: "test", useResponses: false }), tracingDisabled: true });
    const agent = new Agent({ name: "support", instructions: "Help the customer.", model: "agents-model", tools: warden.value.tools });

    const first = await runner.run(agent, "The customer of ticket T-42 wants a refund.");
    expect(first.interruptions.map((i) => i.name)).toEqual(["ticket__fill"]);
    // the read ran, and its output went back to the model
    const toolMessages = model.requestsFor("agents-model")[1]!.body.messages.filter((m) => m.role === "tool");
    expect(JSON.stringify(toolMessages)).toMatch(/articles/);
    // the write is one Warden call, waiting for a person
    expect(await requestsOf(w.bus, "ticket")).toBe(1);
    const pending = warden.value.pendingCalls();
    expect(Object.keys(pending)).toEqual(["call_write"]);

    const alice = await w.approver("alice");
    const inbox = await cardIn(alice, (a) => a.approvalId === pending["call_write"]!.approvalId);
    expect(inbox).toMatchObject({ tool: "ticket.fill", principal: "support-bot" });
    expect((await alice.approve(inbox.approvalId, inbox.argsHash)).ok).toBe(true);

    // resumed as another process would: the run state and the pending calls saved, new tools and agent
    const saved = { state: first.state.toString(), pending: JSON.parse(JSON.stringify(pending)) as typeof pending };
    await client.close();
    const client2 = await w.agent("support-bot", { mode: "llm" });
    const warden2 = await agentsTools(client2, { scope: "ticket_page", timeoutMs: 20_000, pending: saved.pending });
    expect(warden2.ok).toBe(true);
    if (!warden2.ok) return;
    const agent2 = new Agent({ name: "support", instructions: "Help the customer.", model: "agents-model", tools: warden2.value.tools });
    const state = await RunState.fromString(agent2, saved.state);
    for (const i of state.getInterruptions()) state.approve(i);
    const resumed = await runner.run(agent2, state);
    expect(resumed.finalOutput).toBe("Filled in the ticket draft.");
    const lastTool = model.requestsFor("agents-model")[2]!.body.messages.filter((m) => m.role === "tool").at(-1);
    expect(JSON.stringify(lastTool)).toMatch(/T-42/);
    expect(await requestsOf(w.bus, "ticket")).toBe(1);
    expect(warden2.value.pendingCalls()).toEqual({});
    await client2.close();
  });

  it("gives the Vercel AI SDK the same tools: a read runs, and without toolApproval a write that waits for a person answers PENDING with its approval id", async () => {
    const client = await w.agent("support-bot", { mode: "llm" });
    const warden = await aiTools(client, { scope: "ticket_page" });
    expect(warden.ok).toBe(true);
    if (!warden.ok) return;
    expect(Object.keys(warden.value.tools).sort()).toEqual(expect.arrayContaining(["kb__search", "ticket__fill"]));
    expect(Object.keys(warden.value.tools)).not.toContain("customer__message");

    model.script("ai-model", [
      {
        toolCalls: [
          { id: "ai_read", name: "kb__search", arguments: { query: "password" } },
          { id: "ai_write", name: "ticket__fill", arguments: { ticketId: "T-43", fields: { category: "account" } } },
        ],
      },
      { content: "Searched, and proposed a draft for a person to confirm." },
    ]);
    const provider = createOpenAICompatible({ name: "scripted", baseURL: model.baseURL, apiKey: "test" });
    const result = await generateText({ model: provider.chatModel("ai-model"), tools: warden.value.tools, stopWhen: stepCountIs(3), prompt: "Help with T-43." });
    expect(result.text).toBe("Searched, and proposed a draft for a person to confirm.");
    const outputs = Object.fromEntries(result.steps[0]!.toolResults.map((r) => [r.toolName, String(r.output)]));
    expect(outputs["kb__search"]).toMatch(/articles/);
    expect(outputs["ticket__fill"]).toMatch(/^PENDING: this call needs a person's approval \(approvalId \S+\)/);
    expect(Object.keys(warden.value.pendingCalls())).toEqual(["ai_write"]);
    await client.close();
  });
});
