import { describe, expect, it } from "vitest";
import { createAgentClient } from "@warden/sdk";
import { fromWireName } from "@warden/contracts/subjects";
import { callEvents, eventTypes } from "@warden/testing";
import { useTestWarden } from "../support/use-test-warden.js";

describe("the three gates and grade x mode, end to end over the demo domain", () => {
  const t = useTestWarden({ demo: true }, async (w) => {
    // each caller connects as itself; the admin connection only reads the stream
    const botBus = await w.agentBus("support-bot");
    const bot = createAgentClient({ bus: botBus, principal: "support-bot" });
    const alice = await w.person("alice");
    const dana = await w.person("dana");
    return { bot, alice, dana, botBus };
  });

  it("runs a read in llm mode and records the whole chain once", async () => {
    const r = await t.bot.call("kb.search", { query: "refund" }, { mode: "llm" });
    expect(r).toMatchObject({ ok: true, status: "succeeded" });
    expect(Array.isArray((r.data as { articles?: unknown[] }).articles ?? r.data)).toBe(true);
    expect(eventTypes(await callEvents(t.w.bus, r.callId))).toEqual([
      "ToolCallRequested",
      "ToolArgsValidated",
      "ToolPolicyChecked",
      "ToolCallStarted",
      // kb.search declares an outputSchema: the executor records what the check found before the outcome
      "ToolResultValidated",
      "ToolCallFinished",
    ]);
  });

  it("lets the feature-flag gate refuse kb.reindex without kbAdmin and allow it with the flag", async () => {
    const flagDenied = async (callId: string) => {
      const checked = (await callEvents(t.w.bus, callId)).find((e) => e.type === "ToolPolicyChecked");
      expect(checked?.type === "ToolPolicyChecked" && checked.data.ruleIds).toContain("gate.feature_flag");
    };
    const off = await t.bot.call("kb.reindex", {}, { mode: "llm" });
    expect(off).toMatchObject({ ok: false, status: "rejected", error: { code: "POLICY_DENIED" } });
    await flagDenied(off.callId);
    // flags come from the policy document: support-bot is not granted kbAdmin, so asking for it changes nothing
    const claimed = await t.bot.call("kb.reindex", {}, { mode: "llm", flags: { kbAdmin: true } });
    expect(claimed).toMatchObject({ ok: false, status: "rejected", error: { code: "POLICY_DENIED" } });
    await flagDenied(claimed.callId);
    // dana holds kbAdmin: her call runs, and she may still turn the flag off for one call
    const on = await t.dana.call("kb.reindex", {}, { mode: "human" });
    expect(on).toMatchObject({ ok: true, status: "succeeded" });
    const narrowed = await t.dana.call("kb.reindex", {}, { mode: "human", flags: { kbAdmin: false } });
    expect(narrowed).toMatchObject({ ok: false, status: "rejected", error: { code: "POLICY_DENIED" } });
    await flagDenied(narrowed.callId);
  });

  it("lets the scope gate refuse ticket.fill outside the ticket page and allow it there", async () => {
    const args = { ticketId: "T-1", fields: { priority: "high" } };
    const outside = await t.alice.call("ticket.fill", args, { mode: "human" });
    expect(outside).toMatchObject({ ok: false, status: "rejected", error: { code: "POLICY_DENIED" } });
    expect(outside.error?.message).toMatch(/ticket_page/);
    const inside = await t.alice.call("ticket.fill", args, { mode: "human", scope: "ticket_page" });
    expect(inside).toMatchObject({ ok: true, status: "succeeded" });
  });

  it("allows a write in plan mode and refuses the same write to a model that was never shown it (view.not_shown)", async () => {
    const args = { title: "Refund", body: "Customer asks for a refund", customerId: "C-7" };
    // the demo policy's bot.ticket-after-read: support-bot files unattended in a run that read a support conversation
    expect(await t.bot.call("session.fetch", { id: 1 }, { mode: "plan" })).toMatchObject({ ok: true });
    const planned = await t.bot.call("ticket.submit", args, { mode: "plan" });
    expect(planned).toMatchObject({ ok: true, status: "succeeded" });
    const unshown = await t.bot.call("ticket.submit", args, { mode: "llm" });
    expect(unshown).toMatchObject({ ok: false, status: "rejected", error: { code: "POLICY_DENIED", retryable: false } });
    const events = await callEvents(t.w.bus, unshown.callId);
    const rejected = events.find((e) => e.type === "ToolCallRejected");
    expect(rejected?.type === "ToolCallRejected" && rejected.data).toMatchObject({ stage: "policy", ruleIds: ["view.not_shown", "llm.show_write"] });
    expect(eventTypes(events)).not.toContain("ApprovalRequested");
    // the read a model is shown still runs
    expect(await t.bot.call("kb.search", { query: "refund" }, { mode: "llm" })).toMatchObject({ ok: true, status: "succeeded" });
  });

  it("holds support-bot's ticket for a person in a run that read no support conversation (the demo's history rule), naming the rule", async () => {
    const fresh = createAgentClient({ bus: t.botBus, principal: "support-bot" });
    const blind = await fresh.call("ticket.submit", { title: "Refund", body: "unread", customerId: "C-8" }, { mode: "plan" });
    expect(blind).toMatchObject({ ok: false, status: "awaiting_approval" });
    const checked = (await callEvents(t.w.bus, blind.callId)).find((e) => e.type === "ToolPolicyChecked");
    expect(checked?.type === "ToolPolicyChecked" && checked.data).toMatchObject({ decision: "require_approval", ruleIds: ["bot.ticket-after-read"], history: [{ ruleId: "bot.ticket-after-read", scope: "run", holds: true, count: 0 }] });
  });

  it("refuses a fourth message to one customer within the hour (the demo's count limit), those waiting for approval counted", async () => {
    const sends = [];
    for (let i = 0; i < 3; i++) sends.push(await t.bot.call("customer.message", { customerId: "C-limit", text: `note ${i}` }, { mode: "plan" }));
    expect(sends.map((r) => r.status)).toEqual(["awaiting_approval", "awaiting_approval", "awaiting_approval"]);
    const fourth = await t.bot.call("customer.message", { customerId: "C-limit", text: "one too many" }, { mode: "plan" });
    expect(fourth).toMatchObject({ ok: false, status: "rejected", error: { code: "POLICY_DENIED" } });
    expect(fourth.error?.message).toContain("at most 3 messages to one customer");
    // another customer has its own count
    expect(await t.bot.call("customer.message", { customerId: "C-other", text: "hello" }, { mode: "plan" })).toMatchObject({ status: "awaiting_approval" });
  });

  it("holds a write the document shows a model for a person's approval", async () => {
    const args = { ticketId: "T-7", fields: { priority: "low" } };
    const proposed = await t.bot.call("ticket.fill", args, { mode: "llm", scope: "ticket_page" });
    expect(proposed).toMatchObject({ ok: false, status: "awaiting_approval", requiresConfirm: true });
    expect(proposed.approvalId).toBeTruthy();
    expect(eventTypes(await callEvents(t.w.bus, proposed.callId))).not.toContain("ToolCallStarted");
  });

  it("refuses mode human to an agent, so it cannot skip the person who confirms its writes and sends", async () => {
    const write = await t.bot.call("ticket.submit", { title: "t", body: "b", customerId: "C-h" }, { mode: "human" });
    expect(write).toMatchObject({ ok: false, status: "rejected", error: { code: "POLICY_DENIED" } });
    expect(write.error?.message).toMatch(/mode human needs a person/);
  });

  it("never lists a send in the llm ToolView, and holds a model's send for a person when it asks anyway", async () => {
    const r = await t.bot.call("customer.message", { customerId: "C-1", text: "hi" }, { mode: "llm" });
    expect(r).toMatchObject({ ok: false, status: "awaiting_approval", requiresConfirm: true, error: { code: "CONFIRMATION_REQUIRED" } });
    expect(eventTypes(await callEvents(t.w.bus, r.callId))).not.toContain("ToolCallStarted");
    const view = await t.bot.toolView({ principal: "support-bot", mode: "llm", scope: "ticket_page", explain: true, format: "openai" });
    expect(view.ok).toBe(true);
    if (!view.ok) return;
    const names = view.value.view.tools.map((t) => t.name);
    expect(names).toContain("kb.search");
    expect(names).not.toContain("customer.message");
    expect(names).not.toContain("ticket.submit");
    expect(names).toContain("ticket.fill");
    expect(view.value.view.hidden).toContainEqual(expect.objectContaining({ name: "customer.message", reason: "send_never_listed_for_llm" }));
  });

  it("offers wire names that map back to the tools and runs a call made by wire name", async () => {
    const view = await t.bot.toolView({ principal: "support-bot", mode: "llm", format: "openai" });
    if (!view.ok) throw new Error(view.error.message);
    for (const t of view.value.view.tools) {
      expect(t.wireName).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
      expect(fromWireName(t.wireName)).toBe(t.name);
    }
    const r = await t.bot.call("kb__search", { query: "password" }, { mode: "llm" });
    expect(r).toMatchObject({ ok: true, status: "succeeded" });
  });

  it("turns hallucinated tools, dead wire names and invalid args into structured errors", async () => {
    for (const name of ["weather.get", "kb__nothing", "getWeather"]) {
      const r = await t.bot.call(name, {}, { mode: "llm" });
      expect(r, name).toMatchObject({ ok: false, status: "rejected", error: { code: "UNKNOWN_TOOL", retryable: false } });
    }
    const bad = await t.bot.call("kb.search", { query: 42, limit: 99 }, { mode: "llm" });
    expect(bad).toMatchObject({ ok: false, status: "rejected", error: { code: "INVALID_ARGS" } });
    const paths = JSON.stringify(bad.error?.details);
    expect(paths).toContain("/query");
    expect(paths).toContain("/limit");
  });

  it("refuses unsafe names and oversized requests before anything is published", async () => {
    const star = await t.bot.call("kb.*", {}, { mode: "llm" });
    expect(star).toMatchObject({ ok: false, error: { code: "INVALID_REQUEST" } });
    expect(await callEvents(t.w.bus, star.callId)).toEqual([]);
    const huge = await t.bot.call("kb.search", { query: "x".repeat(300_000) }, { mode: "llm" });
    expect(huge).toMatchObject({ ok: false, error: { code: "PAYLOAD_TOO_LARGE" } });
    expect(await callEvents(t.w.bus, huge.callId)).toEqual([]);
    const evil = createAgentClient({ bus: t.botBus, principal: "mallory.*" });
    const r = await evil.call("kb.search", { query: "x" }, { mode: "llm" });
    expect(r).toMatchObject({ ok: false, error: { code: "INVALID_REQUEST" } });
    // a principal is what the connection was authenticated as: support-bot cannot ask as alice
    const impostor = await createAgentClient({ bus: t.botBus, principal: "alice" }).call("kb.search", { query: "x" }, { mode: "human" });
    expect(impostor).toMatchObject({ ok: false, error: { code: "FORBIDDEN" } });
    expect(await callEvents(t.w.bus, impostor.callId)).toEqual([]);
  });

  it("turns a throwing handler and a hanging handler into error results for that call only", async () => {
    const thrown = await t.bot.call("demo.fail", {}, { mode: "llm" });
    expect(thrown).toMatchObject({ ok: false, status: "failed", error: { code: "HANDLER_ERROR" } });
    const slow = await t.bot.call("demo.slow", {}, { mode: "llm" });
    expect(slow).toMatchObject({ ok: false, status: "failed", error: { code: "TIMEOUT", retryable: false } });
    expect(await t.bot.call("kb.search", { query: "refund" }, { mode: "llm" })).toMatchObject({ ok: true });
  });
});
