import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readEvent, type Bus } from "@warden/bus";
import { toModelMessage } from "@warden/contracts/events";
import { readOutbox } from "@warden/example-support-desk";
import { createAgentClient, createApproverClient, type AgentClient, type ApproverClient } from "@warden/sdk";
import { callEvents, eventTypes } from "@warden/testing";
import { cardIn } from "../support/approval-cards.js";
import { usualPrincipals } from "../support/usual-principals.js";
import { startTestWarden, type TestWarden } from "../support/warden.js";

/**
 * A model's send (seed 001/004: requiresConfirm): never listed in its view, never run on its word,
 * but asked for by name it waits for a person instead of being refused (default.send.llm).
 */
describe("a model's send waits for a person: never listed, never run by the model alone", () => {
  let w: TestWarden;
  let botBus: Bus;
  let bot: AgentClient;
  let alice: ApproverClient;
  let carol: ApproverClient;
  beforeAll(async () => {
    w = await startTestWarden({
      demo: true,
      policy: {
        version: "e2e-model-send",
        principals: {
          ...usualPrincipals("alice"),
          carol: { kind: "human", approves: ["write"] },
          // an agent the document lists with `approves` still decides nothing
          "support-bot": { kind: "agent", approves: ["send"] },
        },
        // even where sends may be granted for the session, a model's send never is
        sessionGrants: { grades: ["write", "send"] },
      },
    });
    botBus = await w.agentBus("support-bot");
    bot = createAgentClient({ bus: botBus, principal: "support-bot", timeoutMs: 20_000 });
    alice = await w.approver("alice");
    carol = await w.approver("carol");
  });
  afterAll(async () => {
    await bot.close();
    await w.stop();
  });

  const sentTo = async (customerId: string) => (await readOutbox(w.bus)).filter((m) => m.customerId === customerId);

  it("answers a send the model was never shown with requiresConfirm, refuses agents and the session, and runs it exactly once when a person grants it", async () => {
    const view = await bot.toolView({ mode: "llm", explain: true, format: "openai" });
    if (!view.ok) throw new Error(view.error.message);
    expect(view.value.view.tools.map((t) => t.name)).not.toContain("customer.message");
    const hidden = view.value.view.hidden.find((h) => h.name === "customer.message");
    expect(hidden).toMatchObject({ reason: "send_never_listed_for_llm", ruleIds: ["invariant.send_never_llm"] });
    expect(hidden?.detail).toMatch(/waits for a person/);

    const args = { customerId: "C-model-grant", text: "Your refund is on its way." };
    const asked = await bot.call("customer__message", args, { mode: "llm" });
    expect(asked).toMatchObject({ ok: false, status: "awaiting_approval", requiresConfirm: true, approvalId: expect.any(String), callId: expect.any(String), deciders: ["alice"] });
    expect(toModelMessage(asked)).toMatch(/^PENDING: .*has not run yet\. Only a person can confirm it: do not call it again/);
    const checked = await readEvent(w.bus, "customer", asked.callId, "ToolPolicyChecked");
    expect(checked?.data).toMatchObject({ decision: "require_approval", ruleIds: ["default.send.llm"] });
    expect(checked?.data.reason).toMatch(/never listed for it and never runs on its word: a person must confirm it/);

    const card = await cardIn(alice, (p) => p.approvalId === asked.approvalId);
    expect(card).toMatchObject({ tool: "customer.message", grade: "send", principal: "support-bot", approvers: { human: true, requesterMayConfirm: false } });
    // the agent that asked may not confirm it (nor decide in a person's name); a person without send rights may not either
    expect(await createApproverClient({ bus: botBus, approver: "support-bot" }).approve(card.approvalId, card.argsHash)).toMatchObject({ ok: false, refusal: "NOT_AUTHORISED" });
    expect(await createApproverClient({ bus: botBus, approver: "alice" }).approve(card.approvalId, card.argsHash)).toMatchObject({ ok: false, refusal: "NOT_AUTHORISED" });
    expect(await carol.approve(card.approvalId, card.argsHash)).toMatchObject({ ok: false, refusal: "NOT_AUTHORISED" });
    // a person decides each model's send on its own: never for the session
    const session = await alice.approve(card.approvalId, card.argsHash, { session: { ttlSeconds: 600 } });
    expect(session).toMatchObject({ ok: false, refusal: "SESSION_NOT_ALLOWED" });
    if (!session.ok) expect(session.message).toMatch(/a model's send is never granted for the session/);
    expect(eventTypes(await callEvents(w.bus, asked.callId))).not.toContain("ToolCallStarted");
    expect(await sentTo(args.customerId)).toEqual([]);

    expect(await alice.approve(card.approvalId, card.argsHash)).toMatchObject({ ok: true, decision: "grant" });
    const done = await bot.awaitCall(asked.callId, "customer.message", { timeoutMs: 20_000 });
    expect(done).toMatchObject({ ok: true, status: "succeeded", callId: asked.callId });
    expect(await sentTo(args.customerId)).toHaveLength(1);
    expect(await alice.approve(card.approvalId, card.argsHash)).toMatchObject({ ok: false, refusal: "ALREADY_DECIDED" });
    const types = eventTypes(await callEvents(w.bus, asked.callId));
    expect(types.filter((t) => t === "ToolCallStarted")).toHaveLength(1);
    expect(types.filter((t) => t === "ToolCallFinished")).toHaveLength(1);
    expect(await sentTo(args.customerId)).toHaveLength(1);
  });

  it("gives the waiting model the person's reason when they deny, and sends nothing", async () => {
    const args = { customerId: "C-model-deny", text: "We will close your account." };
    const waiting = bot.call("customer.message", args, { mode: "llm", wait: true, timeoutMs: 20_000 });
    const card = await cardIn(alice, (p) => p.argsPreview.includes(args.customerId));
    expect(await alice.deny(card.approvalId, card.argsHash, "wrong customer, and the tone is off")).toMatchObject({ ok: true, decision: "deny" });
    const r = await waiting;
    expect(r).toMatchObject({ ok: false, status: "denied", approvalId: card.approvalId, error: { code: "APPROVAL_DENIED" } });
    expect(toModelMessage(r)).toBe("ERROR APPROVAL_DENIED: denied by alice: wrong customer, and the tone is off. Do not retry the same call unchanged.");
    expect(eventTypes(await callEvents(w.bus, r.callId))).not.toContain("ToolCallStarted");
    expect(await sentTo(args.customerId)).toEqual([]);
  });
});
