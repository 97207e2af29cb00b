import { beforeAll, describe, expect, it } from "vitest";
import { encodeJson, serveRpc, silentLogger, type Bus } from "@warden/bus";
import { newId, type ApprovalRequested } from "@warden/contracts/events";
import { approverDeliverSubject, approverNotifySubject, approverPendingSubject, decideSubject } from "@warden/contracts/subjects";
import { type Reply } from "@warden/contracts/descriptor";
import { argsHash, type JsonValue } from "@warden/contracts/json";
import { eventually, pendingSend, pendingSendRequest, useConnections, useTestNats } from "@warden/testing";
import { createApproverClient } from "./approver-client.js";

const HASH = argsHash({ customerId: "c1", text: "hi" });

function approvalRequested(approvalId: string): ApprovalRequested {
  return {
    v: 1,
    type: "ApprovalRequested",
    eventId: newId(),
    callId: newId(),
    domain: "customer",
    tool: "customer.message",
    principal: "planner",
    mode: "plan",
    ts: new Date().toISOString(),
    causationId: newId(),
    causeHash: `sha256:${"c".repeat(64)}`,
    correlationId: "run1",
    data: pendingSendRequest(approvalId, { customerId: "c1", text: "hi" }, HASH),
  };
}

/** `person`'s watch of the approver's notices, subscribed before it returns: `next` is the first notice it hears. */
async function watching(bus: Bus, person: string) {
  const watch = createApproverClient({ bus, approver: person }).watch();
  await bus.nc.flush();
  const iterator = watch[Symbol.asyncIterator]();
  return { watch, iterator, next: iterator.next() };
}

describe("createApproverClient against a real nats-server", () => {
  const server = useTestNats();
  const people = useConnections(server, {
    /** alice's own connection (clients account): she may decide and list only as herself. */
    alice: { kind: "human", name: "alice" },
    /** bob's: nothing answers his decisions here. */
    bob: { kind: "human", name: "bob" },
  });
  let approverSide: Bus;
  const decisions: { subject: string; body: unknown }[] = [];

  beforeAll(async () => {
    approverSide = await server.nats.bus("approver-service");
    const pending = pendingSend("ap-1", { callId: "call-1", argsHash: HASH });
    // the test plays the approver service's two RPCs, for alice only, on the subjects her identity may ask on
    serveRpc(approverSide, approverPendingSubject("alice"), "q", silentLogger(), async () => ({ ok: true, value: [pending] }));
    serveRpc(approverSide, "warden.decide.alice.*", "q", silentLogger(), async (body, msg): Promise<Reply> => {
      decisions.push({ subject: msg.subject, body });
      const req = body as { decision: "grant" | "deny"; argsHash: string };
      if (req.argsHash !== HASH) {
        return { ok: true, value: { ok: false, refusal: "ARGS_HASH_MISMATCH", message: "argsHash differs" } };
      }
      return { ok: true, value: { ok: true, approvalId: "ap-1", callId: "call-1", decision: req.decision } };
    });
    await approverSide.nc.flush();
  });

  it("lists pending approvals", async () => {
    const client = createApproverClient({ bus: people.alice, approver: "alice" });
    const r = await client.pending();
    expect(r.ok && r.value.map((p) => p.approvalId)).toEqual(["ap-1"]);
  });

  it("sends a grant and a denial on the approver's decide subject and returns the reply", async () => {
    const client = createApproverClient({ bus: people.alice, approver: "alice" });
    expect(await client.approve("ap-1", HASH, "looks right")).toEqual({ ok: true, approvalId: "ap-1", callId: "call-1", decision: "grant" });
    expect(await client.deny("ap-1", HASH, "not today")).toMatchObject({ ok: true, decision: "deny" });
    expect(decisions.slice(-2)).toEqual([
      { subject: decideSubject("alice", "ap-1"), body: { decision: "grant", argsHash: HASH, reason: "looks right" } },
      { subject: decideSubject("alice", "ap-1"), body: { decision: "deny", argsHash: HASH, reason: "not today" } },
    ]);
  });

  it("returns a refusal as a value with its reason code", async () => {
    const client = createApproverClient({ bus: people.alice, approver: "alice" });
    expect(await client.approve("ap-1", argsHash({ other: true }))).toMatchObject({ ok: false, refusal: "ARGS_HASH_MISMATCH" });
  });

  it("returns UNAVAILABLE as a value when nobody answers, and MALFORMED for unsafe ids", async () => {
    const nobody = createApproverClient({ bus: people.bob, approver: "bob", timeoutMs: 300 });
    expect(await nobody.approve("ap-1", HASH)).toMatchObject({ ok: false, refusal: "UNAVAILABLE" });
    expect(await nobody.deny("ap.1", HASH, "x")).toMatchObject({ ok: false, refusal: "MALFORMED" });
  });

  it("returns NOT_AUTHORISED as a value when the connection's identity may not decide as that approver", async () => {
    // alice's credentials name alice: the server refuses her asking on bob's decide subject
    const impostor = createApproverClient({ bus: people.alice, approver: "bob", timeoutMs: 2_000 });
    const r = await impostor.approve("ap-1", HASH);
    expect(r).toMatchObject({ ok: false, refusal: "NOT_AUTHORISED" });
    if (!r.ok) expect(r.message).toMatch(/permissions violation/i);
    expect(await impostor.pending()).toMatchObject({ ok: false, error: { code: "FORBIDDEN" } });
  });

  it("watches the approver's notices of new requests on this person's own subject", async () => {
    const { watch, iterator, next } = await watching(people.alice, "alice");
    const ev = approvalRequested("ap-watch");
    // the test plays the approver service, which tells alice of a request she may decide
    approverSide.nc.publish(approverNotifySubject("alice", "ap-watch"), encodeJson(ev));
    const got = await next;
    expect(got.done).toBe(false);
    expect(got.value).toMatchObject({ type: "ApprovalRequested", callId: ev.callId, data: { approvalId: "ap-watch" } });
    watch.stop();
    expect((await iterator.next()).done).toBe(true);
  });

  it("keeps watching past a notice it cannot read: nested 50,000 levels deep, not UTF-8, or naming another approval than its subject", async () => {
    const { watch, next } = await watching(people.alice, "alice");
    const deep = approvalRequested("ap-deep");
    const deepText = JSON.stringify(deep).replace('"args":{"customerId":"c1","text":"hi"}', `"args":${"[".repeat(50_000)}${"]".repeat(50_000)}`);
    const notUtf8 = new TextEncoder().encode(JSON.stringify(approvalRequested("ap-utf8")).replace('"text":"hi"', '"text":"é"'));
    notUtf8[notUtf8.indexOf(0xc3)] = 0xff;
    approverSide.nc.publish(approverNotifySubject("alice", "ap-deep"), new TextEncoder().encode(deepText));
    approverSide.nc.publish(approverNotifySubject("alice", "ap-utf8"), notUtf8);
    approverSide.nc.publish(approverNotifySubject("alice", "ap-other"), encodeJson(approvalRequested("ap-elsewhere")));
    const ev = approvalRequested("ap-after-poison");
    approverSide.nc.publish(approverNotifySubject("alice", "ap-after-poison"), encodeJson(ev));
    expect((await next).value).toMatchObject({ callId: ev.callId, data: { approvalId: "ap-after-poison" } });
    watch.stop();
  });

  it("hears nothing of another person's notices", async () => {
    const { watch, next } = await watching(people.bob, "bob");
    approverSide.nc.publish(approverNotifySubject("alice", "ap-alice-only"), encodeJson(approvalRequested("ap-alice-only")));
    approverSide.nc.publish(approverNotifySubject("bob", "ap-bob"), encodeJson(approvalRequested("ap-bob")));
    expect((await next).value).toMatchObject({ data: { approvalId: "ap-bob" } });
    watch.stop();
  });

  it("acknowledges a durable delivery once the loop moves past a card, asks again after an outage, and acknowledges nothing the loop never moved past", async () => {
    // the approver's delivery RPC played here: two cards, then nothing; the first ask finds nobody answering
    const asks: { subject: string; body: { ack?: number } }[] = [];
    let answering = false;
    let cursor = 0;
    const cards = [approvalRequested("ap-d1"), approvalRequested("ap-d2")];
    const fake = serveRpc(approverSide, "warden.approver.deliver.alice.*", "q-deliver", silentLogger(), async (body, msg): Promise<Reply> => {
      asks.push({ subject: msg.subject, body: body as { ack?: number } });
      if (!answering) {
        answering = true;
        return { ok: false, error: { code: "UNAVAILABLE", message: "approver restarting", retryable: true } };
      }
      // as the approver does: the durable's position moves up to each ack, never back
      cursor = Math.max(cursor, (body as { ack?: number }).ack ?? 0);
      const deliveries = cards.map((request, i) => ({ seq: i + 1, request })).filter((d) => d.seq > cursor);
      return { ok: true, value: { cursor, deliveries } as unknown as JsonValue };
    });
    await approverSide.nc.flush();
    try {
      const client = createApproverClient({ bus: people.alice, approver: "alice" });
      // an app that handles d1 and stops: d1 is acknowledged
      for await (const r of client.watch({ durable: "phone" })) {
        expect(r.data.approvalId).toBe("ap-d1");
        break;
      }
      await eventually(() => expect(asks.at(-1)?.body.ack).toBe(1));
      expect(asks[0]?.subject).toBe(approverDeliverSubject("alice", "phone"));
      // an app that receives d2 and crashes while handling it (never asks for the next): nothing acknowledged
      const asked = asks.length;
      const crashing = client.watch({ durable: "phone" })[Symbol.asyncIterator]();
      expect((await crashing.next()).value).toMatchObject({ data: { approvalId: "ap-d2" } });
      expect(asks.slice(asked).map((a) => a.body.ack)).toEqual([undefined]);
    } finally {
      fake.unsubscribe();
    }
  });
});
