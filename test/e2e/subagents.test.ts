import { describe, expect, it } from "vitest";
import { readEvent } from "@warden/bus";
import { readOutbox } from "@warden/example-support-desk";
import { createAgentClient, createApproverClient } from "@warden/sdk";
import type { SubagentDescriptorInput } from "@warden/subagent";
import { callEvents, eventTypes, eventually } from "@warden/testing";
import { cardIn } from "../support/approval-cards.js";
import { childRequests, outputOf, toolMessages, toolNames, useSubagentWarden } from "./subagent-fixture.js";

const base = {
  description: "Use when a support question needs looking into with the knowledge base and the conversation.",
  instructions: "You look things up for a support desk.",
};

const AGENTS: SubagentDescriptorInput[] = [
  { ...base, name: "agent.reader", title: "Reader", model: "m-reader", allowedTools: ["kb.search", "session.fetch", "kb.reindex"], budget: { maxToolCalls: 3 } },
  { ...base, name: "agent.mixed", title: "Mixed", model: "m-mixed", allowedTools: ["kb.search", "customer.message"] },
  { ...base, name: "agent.filer", title: "Filer", model: "m-filer", allowedTools: ["kb.search", "ticket.submit"] },
  { ...base, name: "agent.waiter", title: "Waiter", model: "m-waiter", allowedTools: ["ticket.submit"], waitForApproval: true, budget: { timeoutMs: 20_000 } },
  { ...base, name: "agent.looper", title: "Looper", model: "m-looper", allowedTools: ["kb.search"] },
  { ...base, name: "agent.cheap", title: "Cheap", model: "m-cheap", allowedTools: ["kb.search"], budget: { maxTokens: 500 } },
  { ...base, name: "agent.slow", title: "Slow", model: "m-slow", allowedTools: ["kb.search"], budget: { timeoutMs: 1_500 } },
  { ...base, name: "agent.refs", title: "Refs", model: "m-refs", allowedTools: ["kb.search"], context: "refs" },
];

describe("subagents: a model loop whose every call is a governed child call", () => {
  const s = useSubagentWarden(AGENTS, {}, async ({ w }) => {
    // the agent and the person connect as themselves; the admin connection only reads the stream
    const aliceBus = await w.humanBus("alice");
    return {
      bot: await w.agent("support-bot", { timeoutMs: 20_000 }),
      alice: createAgentClient({ bus: aliceBus, principal: "alice", timeoutMs: 20_000 }),
      approver: createApproverClient({ bus: aliceBus, approver: "alice" }),
    };
  });

  it("shows the model only its allowed visible tools under wire names, runs its reads and feeds their results to the next turn", async () => {
    s.model.script("m-reader", [
      { toolCalls: [{ name: "kb__search", arguments: { query: "refund" } }, { name: "session__fetch", arguments: { id: 1 } }] },
      { content: "The customer wants a refund for a broken blender; article found." },
    ]);
    const r = await s.bot.call("agent.reader", { task: "What does the customer in session 1 want?" }, { mode: "plan", runId: "run-reader" });
    const out = outputOf(r);
    expect(out).toMatchObject({ stoppedBy: "answer", answer: "The customer wants a refund for a broken blender; article found." });
    expect(out.usage).toMatchObject({ turns: 2, toolCalls: 2, tokens: 120 });
    expect(out.childCalls.map((c) => [c.tool, c.status])).toEqual([["kb.search", "succeeded"], ["session.fetch", "succeeded"]]);

    const [first, second] = s.model.requestsFor("m-reader");
    expect(first?.authorization).toBe("Bearer test-key");
    // kb.reindex is allowed but its feature flag is off for this call: hidden, like everything not allowed
    expect(toolNames(first!.body)).toEqual(["kb__search", "session__fetch"]);
    expect(toolNames(second!.body)).toEqual(["kb__search", "session__fetch"]);
    const results = toolMessages(second!.body);
    expect(results).toHaveLength(2);
    expect(results[0]).toMatch(/refund/i);
    expect(results[1]).toMatch(/blender arrived broken/);

    const view = await readEvent(s.w.bus, "agent", r.callId, "ToolViewCompiled", "t1");
    expect(view?.data).toMatchObject({ turn: 1, viewPrincipal: "agent-reader", viewMode: "llm" });
    expect(view?.data.tools.map((t) => t.wireName).sort()).toEqual(["kb__search", "session__fetch"]);
    expect(view?.data.hidden).toEqual([expect.objectContaining({ name: "kb.reindex", reason: "feature_flag_off" })]);
    expect(await readEvent(s.w.bus, "agent", r.callId, "ToolViewCompiled", "t2")).toBeDefined();

    const children = await childRequests(s.w.bus, "agent-reader", r.callId);
    expect(children).toHaveLength(2);
    for (const child of children) {
      expect(child).toMatchObject({ principal: "agent-reader", mode: "llm", correlationId: "run-reader", parentCallId: r.callId });
      const events = await callEvents(s.w.bus, child.callId);
      // kb.search's outputSchema is checked and recorded (ToolResultValidated); session.fetch has no check
      const validated = child.domain === "kb" ? ["ToolResultValidated"] : [];
      expect(eventTypes(events)).toEqual(["ToolCallRequested", "ToolArgsValidated", "ToolPolicyChecked", "ToolCallStarted", ...validated, "ToolCallFinished"]);
      expect(events.every((e) => e.parentCallId === r.callId)).toBe(true);
      const checked = events.find((e) => e.type === "ToolPolicyChecked");
      expect(checked?.type === "ToolPolicyChecked" && checked.data.ruleIds).toContain("attenuation.checked");
    }
  });

  it("refuses invented names, hidden tools and malformed arguments, reports each back and publishes none of them", async () => {
    s.model.script("m-reader", [
      {
        toolCalls: [
          { name: "web__search", arguments: { q: "refund" } },
          { name: "customer__message", arguments: { customerId: "C-9", text: "hi" } },
          { name: "kb__reindex", arguments: {} },
          { name: "kb__search", arguments: '{"query": "refund"' },
        ],
      },
      { content: "Nothing usable." },
    ]);
    const r = await s.bot.call("agent.reader", { task: "try things" }, { mode: "plan" });
    const out = outputOf(r);
    expect(out.stoppedBy).toBe("answer");
    expect(out.usage.toolCalls).toBe(0);
    expect(out.childCalls.map((c) => [c.tool, c.callId, c.status, c.error?.code])).toEqual([
      ["web__search", null, "refused", "UNKNOWN_TOOL"],
      ["customer__message", null, "refused", "UNKNOWN_TOOL"],
      ["kb__reindex", null, "refused", "UNKNOWN_TOOL"],
      ["kb__search", null, "refused", "INVALID_ARGS"],
    ]);
    const told = toolMessages(s.model.requestsFor("m-reader").at(-1)!.body);
    expect(told).toHaveLength(4);
    expect(told.slice(0, 3).every((t) => t.startsWith("ERROR UNKNOWN_TOOL") && t.includes("kb__search, session__fetch"))).toBe(true);
    expect(told[3]).toMatch(/^ERROR INVALID_ARGS: the arguments for kb__search could not be used: they are not valid JSON/);
    expect(await childRequests(s.w.bus, "agent-reader", r.callId)).toEqual([]);
  });

  it("refuses calls beyond the tool-call budget, tells the model, and stops when it asks again", async () => {
    const search = (query: string) => ({ name: "kb__search", arguments: { query } });
    s.model.script("m-reader", [
      { toolCalls: [search("refund"), search("password"), search("delivery"), search("billing")] },
      { toolCalls: [search("app")] },
    ]);
    const r = await s.bot.call("agent.reader", { task: "search a lot" }, { mode: "plan" });
    const out = outputOf(r);
    expect(out).toMatchObject({ stoppedBy: "toolCalls", answer: null, usage: { turns: 2, toolCalls: 3 } });
    expect(out.summary).toMatch(/tool-call budget \(3 calls\) is spent/);
    expect(out.childCalls.map((c) => c.status)).toEqual(["succeeded", "succeeded", "succeeded", "refused", "refused"]);
    expect(toolMessages(s.model.requestsFor("m-reader").at(-1)!.body).at(-1)).toMatch(/^ERROR BUDGET_EXCEEDED: the budget of 3 tool calls is spent/);
    expect(await childRequests(s.w.bus, "agent-reader", r.callId)).toHaveLength(3);
  });

  it("never shows a send tool to the model even when the subagent allows it; asked for by name, the send waits for a person, once", async () => {
    const send = { name: "customer__message", arguments: { customerId: "C-mixed", text: "refund done" } };
    // the model asks for the send it was never shown, then asks again: the second ask publishes nothing
    s.model.script("m-mixed", [{ toolCalls: [send] }, { toolCalls: [send] }, { content: "A person must confirm the message." }]);
    // a send-grade subagent needs a person even when a person starts it: alice confirms her own call
    const pending = await s.alice.call("agent.mixed", { task: "tell C-mixed the refund is done" }, { mode: "human" });
    expect(pending).toMatchObject({ status: "awaiting_approval", requiresConfirm: true });
    const requested = await readEvent(s.w.bus, "agent", pending.callId, "ApprovalRequested");
    expect(requested?.data.grade).toBe("send");
    // she decides from her own inbox, as a person does
    const inbox = await s.approver.pending();
    const item = inbox.ok ? inbox.value.find((p) => p.approvalId === pending.approvalId) : undefined;
    expect(item).toMatchObject({ approvalId: requested?.data.approvalId, grade: "send", principal: "alice" });
    expect(await s.approver.approve(item!.approvalId, item!.argsHash)).toMatchObject({ ok: true });
    const finished = await eventually(async () => {
      const e = await readEvent(s.w.bus, "agent", pending.callId, "ToolCallFinished");
      expect(e).toBeDefined();
      return e!;
    });
    const out = outputOf({ ok: finished.data.ok, data: finished.data.output });
    expect(out).toMatchObject({ stoppedBy: "answer", usage: { turns: 3, toolCalls: 1 } });
    expect(out.childCalls).toEqual([expect.objectContaining({ tool: "customer.message", status: "awaiting_approval", ok: false, approvalId: expect.any(String) })]);
    expect(out.summary).toMatch(/1 waiting for approval/);
    const [first, second, third] = s.model.requestsFor("m-mixed");
    for (const r of [first, second, third]) expect(toolNames(r!.body)).toEqual(["kb__search"]);
    expect(toolMessages(second!.body)[0]).toMatch(/^PENDING: this call needs a person's approval \(approvalId \S+\); it has not run yet\. Only a person can confirm it: do not call it again/);
    expect(toolMessages(third!.body)[1]).toMatch(/^You asked for this same call before \(call \S+\); it was not asked for again\. PENDING: /);
    // one child call, decided by the policy's default for a model's send, recorded as the subagent's own
    const children = await childRequests(s.w.bus, "agent-mixed", pending.callId);
    expect(children.map((c) => [c.tool, c.mode])).toEqual([["customer.message", "llm"]]);
    const checked = await readEvent(s.w.bus, "customer", children[0]!.callId, "ToolPolicyChecked");
    expect(checked?.data).toMatchObject({ decision: "require_approval" });
    expect(checked?.data.ruleIds.slice(0, 2)).toEqual(["default.send.llm", "attenuation.checked"]);
    const view = await readEvent(s.w.bus, "agent", pending.callId, "ToolViewCompiled", "t1");
    expect(view?.data.hidden).toEqual([expect.objectContaining({ name: "customer.message", reason: "send_never_listed_for_llm" })]);
    // alice delegated the task, so she may not confirm what it asks; nothing is sent
    const child = out.childCalls[0]!;
    const hash = (await readEvent(s.w.bus, "customer", child.callId!, "ApprovalRequested"))!.data.argsHash;
    expect(await s.approver.approve(child.approvalId!, hash)).toMatchObject({ ok: false, refusal: "NOT_AUTHORISED" });
    expect((await readOutbox(s.w.bus)).filter((m) => m.customerId === "C-mixed")).toEqual([]);
  });

  it("reports a write the model proposes as pending approval, never running it", async () => {
    const ticket = { title: "Broken blender", body: "Refund requested", customerId: "C-filer" };
    s.model.script("m-filer", [{ toolCalls: [{ name: "ticket__submit", arguments: ticket }] }, { content: "Ticket proposed; waiting for a person." }]);
    const r = await s.bot.call("agent.filer", { task: "file a ticket for C-filer" }, { mode: "plan" });
    const out = outputOf(r);
    expect(out.stoppedBy).toBe("answer");
    const [child] = out.childCalls;
    expect(child).toMatchObject({ tool: "ticket.submit", status: "awaiting_approval", ok: false });
    expect(child?.approvalId).toBeTruthy();
    expect(out.summary).toMatch(/1 waiting for approval/);
    expect(toolMessages(s.model.requestsFor("m-filer").at(-1)!.body)[0]).toMatch(/^PENDING: this call needs a person's approval/);
    const events = eventTypes(await callEvents(s.w.bus, child!.callId!));
    expect(events).toContain("ApprovalRequested");
    expect(events).not.toContain("ToolCallStarted");
  });

  it("waits within its time budget for a person to approve a write, then gives the model the result", async () => {
    const ticket = { title: "Password reset", body: "Email never arrives", customerId: "C-waiter" };
    s.model.script("m-waiter", [{ toolCalls: [{ name: "ticket__submit", arguments: ticket }] }, { content: "Filed." }]);
    const running = s.bot.call("agent.waiter", { task: "file it" }, { mode: "plan" });
    const item = await cardIn(s.approver, (a) => a.principal === "agent-waiter");
    expect(await s.approver.approve(item.approvalId, item.argsHash)).toMatchObject({ ok: true });
    const out = outputOf(await running);
    expect(out.childCalls).toEqual([expect.objectContaining({ tool: "ticket.submit", status: "succeeded", ok: true })]);
    expect(toolMessages(s.model.requestsFor("m-waiter").at(-1)!.body)[0]).toMatch(/"ticketId":"T-/);
  });

  it("stops at the four-turn cap with a partial result", async () => {
    const turn = { toolCalls: [{ name: "kb__search", arguments: { query: "refund" } }] };
    s.model.script("m-looper", [turn, turn, turn, turn]);
    const r = await s.bot.call("agent.looper", { task: "loop" }, { mode: "plan" });
    const out = outputOf(r);
    expect(out).toMatchObject({ stoppedBy: "turns", answer: null, usage: { turns: 4, toolCalls: 4 } });
    expect(out.summary).toMatch(/^partial result: the turn budget \(4 turns\) ran out/);
    // a fifth request would have found no scripted turn and failed the call
    expect(s.model.requestsFor("m-looper")).toHaveLength(4);
  });

  it("stops when a reply spends the token budget, before running the calls it asks for", async () => {
    s.model.script("m-cheap", [{ toolCalls: [{ name: "kb__search", arguments: { query: "refund" } }], usage: { prompt_tokens: 400, completion_tokens: 200 } }]);
    const r = await s.bot.call("agent.cheap", { task: "be brief" }, { mode: "plan" });
    const out = outputOf(r);
    expect(out).toMatchObject({ stoppedBy: "tokens", usage: { turns: 1, toolCalls: 0, tokens: 600 }, childCalls: [] });
    expect(out.summary).toMatch(/token budget \(500 tokens\) is spent/);
    expect(await childRequests(s.w.bus, "agent-cheap", r.callId)).toEqual([]);
  });

  it("stops a turn that outlives the time budget and returns what it has", async () => {
    s.model.script("m-slow", [{ content: "too late", delayMs: 10_000 }]);
    const t0 = Date.now();
    const r = await s.bot.call("agent.slow", { task: "think slowly" }, { mode: "plan" });
    const out = outputOf(r);
    expect(out).toMatchObject({ stoppedBy: "time", answer: null, usage: { turns: 1 } });
    expect(out.summary).toMatch(/time budget \(1500 ms\) ran out/);
    expect(Date.now() - t0).toBeLessThan(8_000);
  });

  it("gives a refs subagent the results of earlier calls of its own run only", async () => {
    const mine = await s.bot.call("kb.search", { query: "password" }, { mode: "plan", runId: "run-refs" });
    const theirs = await s.alice.call("kb.search", { query: "refund" }, { mode: "human", runId: "run-other" });
    s.model.script("m-refs", [{ content: "Read them." }]);
    const r = await s.bot.call("agent.refs", { task: "summarise", refs: [mine.callId, theirs.callId] }, { mode: "plan", runId: "run-refs" });
    expect(outputOf(r).stoppedBy).toBe("answer");
    const user = String(s.model.requestsFor("m-refs")[0]!.body.messages[1]?.content);
    expect(user).toContain(`[${mine.callId}] kb.search: {"articles":`);
    expect(user).toContain(`[${theirs.callId}] not part of this run; not read`);
    expect(user).not.toMatch(/refund/i);
  });

  it("ends the call with an error naming the turn when the model endpoint fails", async () => {
    s.model.script("m-refs", [{ status: 500 }, { status: 500 }]);
    const r = await s.bot.call("agent.refs", { task: "x" }, { mode: "plan" });
    expect(r).toMatchObject({ ok: false, status: "failed", error: { code: "UNAVAILABLE", message: expect.stringMatching(/model endpoint failed on turn 1/) } });
  });

  it("lets a caller lower the budget, never raise it", async () => {
    const raised = await s.bot.call("agent.looper", { task: "x", budget: { maxTurns: 9 } }, { mode: "plan" });
    expect(raised).toMatchObject({ ok: false, status: "rejected", error: { code: "INVALID_ARGS" } });
    s.model.script("m-looper", [{ toolCalls: [{ name: "kb__search", arguments: { query: "refund" } }] }]);
    const lowered = await s.bot.call("agent.looper", { task: "x", budget: { maxTurns: 1 } }, { mode: "plan" });
    expect(outputOf(lowered)).toMatchObject({ stoppedBy: "turns", usage: { turns: 1, toolCalls: 1 } });
  });
});
