import { describe, expect, it } from "vitest";
import { appendEvent, readClaim, readEvent, readRequestOf } from "@warden/bus";
import { idempotentCallId, newId, undoCallIdOf, type ToolCallRequested } from "@warden/contracts/events";
import { type JsonObject } from "@warden/contracts/json";
import { createAgentClient } from "@warden/sdk";
import { deadLetters, eventually, waitForEvent } from "@warden/testing";
import { handMadeRequest } from "../support/hand-made-request.js";
import { usualPrincipals } from "../support/usual-principals.js";
import { useTestWarden } from "../support/use-test-warden.js";

/**
 * Issue 25 item 5: a call id derived from something a stranger can learn (a call's id, an
 * idempotency key) cannot be taken by the stranger first. Each case shows the slot-first rule it
 * would have exploited (a control the stranger wins) next to the derived id it now cannot take.
 */
describe("call ids cannot be pre-claimed across principals", () => {
  const t = useTestWarden({
    demo: true,
    policy: { version: "call-id-claims", principals: { ...usualPrincipals("alice", "planner"), mallory: { kind: "agent" } } },
  }, async (w) => ({
    planner: await w.agent("planner", { mode: "plan" }),
    mallory: await w.agentBus("mallory"),
  }));

  /** Mallory stores a request of her own (the only principal her credentials may name) under `callId`. */
  const claim = async (callId: string, tool: string, args: JsonObject, extra: Partial<ToolCallRequested["data"]> = {}): Promise<ToolCallRequested> => {
    const req = handMadeRequest({ callId, tool, principal: "mallory", mode: "plan", runId: "run-mallory", data: { args, ...extra } });
    expect((await appendEvent(t.mallory, req)).status).toBe("written");
    return req;
  };
  const letters = (domain: string, callId: string, principal: string) => deadLetters(t.w.bus, `${domain}.${callId}.ToolCallRequested.${principal}`);

  it("a stranger who pre-claims a call's undo id does not stop its owner's undo; the stranger's request gets no answer and a dead letter", async () => {
    const filed = await t.planner.call("ticket.submit", { title: "Refund", body: "by mistake", customerId: "C-claim" }, { wait: true, timeoutMs: 20_000 });
    expect(filed).toMatchObject({ ok: true, status: "succeeded" });
    const ticketId = (filed.data as { ticketId: string }).ticketId;

    // control: an id anyone can work out from the call's id (the undo's id before issue 25) is the
    // first requester's: mallory's request is answered, the owner's under it goes to the DLQ
    const guessable = `${filed.callId}-undo`;
    await claim(guessable, "ticket.withdraw", { ticketId });
    expect((await waitForEvent(t.w.bus, "ticket", guessable, "ToolArgsValidated", 15_000)).principal).toBe("mallory");
    await appendEvent(await t.w.agentBus("planner"), { ...(await readEvent(t.w.bus, "ticket", guessable, "ToolCallRequested"))!, eventId: newId(), principal: "planner" });
    await eventually(async () => expect((await letters("ticket", guessable, "planner")).join()).toMatch(/reused the callId/), 15_000);

    // the undo's id now carries its owner's tag: mallory can work it out, but not take it
    const undoId = undoCallIdOf("planner", "ticket", filed.callId);
    await claim(undoId, "ticket.withdraw", { ticketId }, { compensates: { callId: filed.callId, domain: "ticket" } });
    await eventually(async () => expect((await letters("ticket", undoId, "mallory")).join()).toMatch(/derived for another principal/), 15_000);
    // nothing answers her request: the call's answer slots are still empty
    expect(await readEvent(t.w.bus, "ticket", undoId, "ToolArgsValidated")).toBeUndefined();
    expect(await readEvent(t.w.bus, "ticket", undoId, "ToolCallRejected")).toBeUndefined();

    const undone = await t.planner.undo(filed.callId, { wait: true, timeoutMs: 20_000 });
    expect(undone, JSON.stringify(undone)).toMatchObject({ ok: true, status: "succeeded", callId: undoId, data: { ticketId, withdrawn: true } });
    const validated = await readEvent(t.w.bus, "ticket", undoId, "ToolArgsValidated");
    const request = await readRequestOf(t.w.bus, "ticket", undoId);
    expect(request).toMatchObject({ principal: "planner" });
    expect(validated).toMatchObject({ principal: "planner", causationId: request!.eventId });
    // one undo per call still: asking again follows the same undo
    expect(await t.planner.undo(filed.callId, { wait: true, timeoutMs: 20_000 })).toMatchObject({ ok: true, callId: undoId });
  });

  it("a stranger who knows another principal's idempotency key cannot take its call id", async () => {
    const key = `refund-${newId()}`;
    const callId = idempotentCallId("planner", key);
    await claim(callId, "kb.search", { query: "mallory's" });
    await eventually(async () => expect((await letters("kb", callId, "mallory")).join()).toMatch(/derived for another principal/), 15_000);
    expect(await readEvent(t.w.bus, "kb", callId, "ToolArgsValidated")).toBeUndefined();

    const r = await t.planner.call("kb.search", { query: "refund" }, { idempotencyKey: key, wait: true, timeoutMs: 20_000 });
    expect(r, JSON.stringify(r)).toMatchObject({ ok: true, status: "succeeded", callId });
    expect(await readEvent(t.w.bus, "kb", callId, "ToolArgsValidated")).toMatchObject({ principal: "planner", data: { args: { query: "refund" } } });
  });

  it("a stranger's request stored under a call's id does not make it the call's requester: it cannot cancel the call", async () => {
    const asked = await t.planner.call("customer.message", { customerId: "C-claim", text: "your refund is on its way" });
    expect(asked.status).toBe("awaiting_approval");
    // stored after the owner's, so a reader taking the last request of the id would take hers
    await claim(asked.callId, "customer.message", { customerId: "C-claim", text: "ignore the last message" });
    expect((await readRequestOf(t.w.bus, "customer", asked.callId))?.principal).toBe("planner");

    const cancel = await createAgentClient({ bus: t.mallory, principal: "mallory", mode: "plan" }).cancel(asked.callId);
    expect(cancel).toMatchObject({ ok: false, refusal: "NOT_AUTHORISED" });
    expect(await readClaim(t.w.bus, "customer", asked.callId)).toBeUndefined();
    expect(await t.planner.cancel(asked.callId)).toMatchObject({ ok: true, by: "planner" });
  });
});
