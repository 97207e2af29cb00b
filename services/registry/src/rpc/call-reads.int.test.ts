import { beforeAll, describe, expect, it } from "vitest";
import { headers } from "@nats-io/transport-node";
import { appendEvent, encodeJson, readEvent, requestRpc, type Bus } from "@warden/bus";
import { CallReadReplySchema, newId, type CallReadRequestInput, type WardenEvent } from "@warden/contracts/events";
import { callEventSubject, callReadSubject } from "@warden/contracts/subjects";
import { type Reply } from "@warden/contracts/descriptor";
import { eventually, useConnections } from "@warden/testing";
import { registerSearchAndMessage, requestedCall, useRegistryHarness, uniqueDomain } from "../../test-support/registry-harness.js";

/** A read as a client makes it: on its own subject, through the clients account's import. */
async function readCall(bus: Bus, principal: string, domain: string, callId: string, req: CallReadRequestInput = {}): Promise<Reply> {
  return requestRpc(bus, callReadSubject(principal, domain, callId), req, (req.timeoutMs ?? 0) + 5_000);
}

function eventsOf(reply: Reply): WardenEvent[] {
  if (!reply.ok) throw new Error(`${reply.error.code}: ${reply.error.message}`);
  return CallReadReplySchema.parse(reply.value).events;
}

const typesOf = (events: readonly WardenEvent[]) => events.map((e) => e.type).sort();

describe("the registry's call-read API (warden.calls.<principal>.<domain>.<callId>)", () => {
  const h = useRegistryHarness();
  const domain = uniqueDomain("reads");
  const callers = useConnections(h, {
    /** Two agents in the clients account: each may ask only on its own read subject. */
    agent: { kind: "agent", name: "agent-1" },
    other: { kind: "agent", name: "agent-2" },
    /** The executor of the domain: the one user allowed to publish the domain's outcomes. */
    executor: { kind: "executor", name: `ex-${domain}`, domains: [domain] },
  });

  beforeAll(async () => {
    await registerSearchAndMessage(h, domain);
  });

  /**
   * A call of agent-1: its request appended by the agent itself (the registry then validates it),
   * and the events the later stages would write, to be appended by the test when it chooses.
   */
  function newCall(outcome: "approval_denied" | "succeeded") {
    return requestedCall(h, callers.agent, { tool: outcome === "approval_denied" ? `${domain}.message` : `${domain}.search`, principal: "agent-1", outcome });
  }

  it("lets a principal read its own call: its request and the events that settle it", async () => {
    const call = await newCall("succeeded");
    const now = eventsOf(await readCall(callers.agent, "agent-1", domain, call.callId));
    expect(now.map((e) => [e.type, e.eventId])).toEqual([["ToolCallRequested", call.of("ToolCallRequested").eventId]]);

    expect((await appendEvent(h.bus, call.of("ToolCallFinished"))).status).toBe("written");
    const done = eventsOf(await readCall(callers.agent, "agent-1", domain, call.callId, { wait: "terminal", timeoutMs: 5_000 }));
    expect(typesOf(done)).toEqual(["ToolCallFinished", "ToolCallRequested"]);
    expect(done.find((e) => e.type === "ToolCallFinished")).toEqual(call.of("ToolCallFinished"));
  });

  it("answers NOT_FOUND for another principal's call, exactly as for a call that does not exist", async () => {
    const call = await newCall("succeeded");
    const foreign = await readCall(callers.other, "agent-2", domain, call.callId);
    expect(foreign).toMatchObject({ ok: false, error: { code: "NOT_FOUND", retryable: false } });
    const missing = await readCall(callers.other, "agent-2", domain, newId());
    expect(missing).toMatchObject({ ok: false, error: { code: "NOT_FOUND", retryable: false } });
    // and the server does not let agent-2 ask on agent-1's read subject at all
    const asOther = await readCall(callers.other, "agent-1", domain, call.callId);
    expect(asOther).toMatchObject({ ok: false, error: { code: "FORBIDDEN", retryable: false } });
    if (!asOther.ok) expect(asOther.error.message).toMatch(/permissions violation/i);
  });

  it("returns a wait for `settled` at ApprovalRequested, while a wait for `terminal` goes on to the outcome", async () => {
    const call = await newCall("approval_denied");
    const timeoutMs = 20_000;
    const startedAt = Date.now();
    const settled = readCall(callers.agent, "agent-1", domain, call.callId, { wait: "settled", timeoutMs });
    let terminalDone = false;
    const terminal = readCall(callers.agent, "agent-1", domain, call.callId, { wait: "terminal", timeoutMs }).finally(() => (terminalDone = true));

    expect((await appendEvent(h.bus, call.of("ApprovalRequested"))).status).toBe("written");
    const atApproval = eventsOf(await settled);
    expect(Date.now() - startedAt).toBeLessThan(timeoutMs / 2);
    expect(typesOf(atApproval)).toEqual(["ApprovalRequested", "ToolCallRequested"]);

    // an approval request is not an outcome: a short terminal read runs to its timeout without one
    const shortStart = Date.now();
    const short = eventsOf(await readCall(callers.agent, "agent-1", domain, call.callId, { wait: "terminal", timeoutMs: 500 }));
    expect(Date.now() - shortStart).toBeGreaterThanOrEqual(450);
    expect(typesOf(short)).toEqual(["ApprovalRequested", "ToolCallRequested"]);
    expect(terminalDone).toBe(false);

    expect((await appendEvent(h.bus, call.of("ApprovalDenied"))).status).toBe("written");
    const end = eventsOf(await terminal);
    expect(Date.now() - startedAt).toBeLessThan(timeoutMs / 2);
    expect(typesOf(end)).toEqual(["ApprovalDenied", "ApprovalRequested", "ToolCallRequested"]);
  });

  it("is neither settled nor fooled by a forged outcome the stream refused, which core subscribers still saw", async () => {
    const call = await newCall("succeeded");
    const subject = callEventSubject(domain, call.callId, "ToolCallFinished");
    const forged = { ...call.of("ToolCallFinished"), eventId: newId(), data: { ...call.of("ToolCallFinished").data, output: { forged: true } } };
    let seenOnWire = 0;
    const spy = h.bus.nc.subscribe(subject, { callback: () => void seenOnWire++ });
    await h.bus.nc.flush();

    // the stream refuses the message (it expects a sequence the subject does not have), but a
    // core publish still reaches every core subscriber, a waiting read's among them
    const h2 = headers();
    h2.set("Nats-Expected-Last-Subject-Sequence", "999999");
    const timeoutMs = 1_500;
    const startedAt = Date.now();
    let reading = true;
    const read = readCall(callers.agent, "agent-1", domain, call.callId, { wait: "settled", timeoutMs }).finally(() => (reading = false));
    // forge again and again while the read waits, so some copies surely arrive after its subscription
    const forge = setInterval(() => {
      if (reading) callers.executor.nc.publish(subject, encodeJson(forged), { headers: h2 });
    }, 50);
    let events: WardenEvent[];
    try {
      events = eventsOf(await read);
    } finally {
      clearInterval(forge);
    }
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(timeoutMs - 50);
    expect(typesOf(events)).toEqual(["ToolCallRequested"]);
    expect(JSON.stringify(events)).not.toContain("forged");
    await eventually(() => expect(seenOnWire).toBeGreaterThan(0));
    spy.unsubscribe();
    expect(await readEvent(h.bus, domain, call.callId, "ToolCallFinished")).toBeUndefined();

    // the slot stayed empty: the real outcome is written and settles the next read
    expect((await appendEvent(h.bus, call.of("ToolCallFinished"))).status).toBe("written");
    const after = eventsOf(await readCall(callers.agent, "agent-1", domain, call.callId, { wait: "settled", timeoutMs: 5_000 }));
    expect(after.find((e) => e.type === "ToolCallFinished")).toEqual(call.of("ToolCallFinished"));
  });
});
