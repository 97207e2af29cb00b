import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appendEvent, serveRpc, silentLogger, type Bus } from "@warden/bus";
import {
  argsHash,
  decideSubject,
  newId,
  SUBJECT_APPROVER_PENDING,
  type ApprovalRequested,
  type PendingApproval,
} from "@warden/contracts";
import { startTestNats, type TestNats } from "../../../test/support/nats.js";
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
    correlationId: "run1",
    data: {
      version: "1.0.0",
      descriptorHash: HASH,
      grade: "send",
      argsHash: HASH,
      approvalId,
      argsPreview: "{}",
      args: { customerId: "c1", text: "hi" },
      title: "Message a customer",
      expiresAt: new Date(Date.now() + 60_000).toISOString(),
      approvers: { human: true, requesterMayConfirm: false },
      reason: "send needs a human",
      ruleIds: ["default.send.plan"],
      policyVersion: "test",
    },
  };
}

describe("createApproverClient against a real nats-server", () => {
  let nats: TestNats;
  let bus: Bus;
  let approverSide: Bus;
  const decisions: { subject: string; body: unknown }[] = [];

  beforeAll(async () => {
    nats = await startTestNats();
    bus = await nats.bus("approver-client");
    approverSide = await nats.bus("approver-service");
    const pending: PendingApproval = {
      approvalId: "ap-1",
      callId: "call-1",
      domain: "customer",
      tool: "customer.message",
      title: "Message a customer",
      grade: "send",
      principal: "planner",
      mode: "plan",
      argsHash: HASH,
      argsPreview: "{}",
      reason: "send needs a human",
      requestedAt: new Date().toISOString(),
      expiresAt: new Date(Date.now() + 60_000).toISOString(),
      approvers: { human: true, requesterMayConfirm: false },
    };
    // the test plays the approver service's two RPCs
    serveRpc(approverSide, SUBJECT_APPROVER_PENDING, "q", silentLogger(), async () => ({ ok: true, value: [pending] }));
    serveRpc(approverSide, "warden.decide.alice.*", "q", silentLogger(), async (body, msg) => {
      decisions.push({ subject: msg.subject, body });
      const req = body as { decision: "grant" | "deny"; argsHash: string };
      if (req.argsHash !== HASH) {
        return { ok: true, value: { ok: false, refusal: "ARGS_HASH_MISMATCH", message: "argsHash differs" } };
      }
      return { ok: true, value: { ok: true, approvalId: "ap-1", callId: "call-1", decision: req.decision } };
    });
    await approverSide.nc.flush();
  });
  afterAll(async () => nats.stop());

  it("lists pending approvals", async () => {
    const client = createApproverClient({ bus, approver: "alice" });
    const r = await client.pending();
    expect(r.ok && r.value.map((p) => p.approvalId)).toEqual(["ap-1"]);
  });

  it("sends a grant and a denial on the approver's decide subject and returns the reply", async () => {
    const client = createApproverClient({ bus, approver: "alice" });
    expect(await client.approve("ap-1", HASH, "looks right")).toEqual({ ok: true, approvalId: "ap-1", callId: "call-1", decision: "grant" });
    expect(await client.deny("ap-1", HASH, "not today")).toMatchObject({ ok: true, decision: "deny" });
    expect(decisions.slice(-2)).toEqual([
      { subject: decideSubject("alice", "ap-1"), body: { decision: "grant", argsHash: HASH, reason: "looks right" } },
      { subject: decideSubject("alice", "ap-1"), body: { decision: "deny", argsHash: HASH, reason: "not today" } },
    ]);
  });

  it("returns a refusal as a value with its reason code", async () => {
    const client = createApproverClient({ bus, approver: "alice" });
    expect(await client.approve("ap-1", argsHash({ other: true }))).toMatchObject({ ok: false, refusal: "ARGS_HASH_MISMATCH" });
  });

  it("returns UNAVAILABLE as a value when nobody answers, and MALFORMED for unsafe ids", async () => {
    const nobody = createApproverClient({ bus, approver: "bob", timeoutMs: 300 });
    expect(await nobody.approve("ap-1", HASH)).toMatchObject({ ok: false, refusal: "UNAVAILABLE" });
    expect(await nobody.deny("ap.1", HASH, "x")).toMatchObject({ ok: false, refusal: "MALFORMED" });
  });

  it("watches new approval requests as they are appended", async () => {
    const client = createApproverClient({ bus, approver: "alice" });
    const watch = client.watch();
    await bus.nc.flush();
    const iterator = watch[Symbol.asyncIterator]();
    const next = iterator.next();
    const ev = approvalRequested("ap-watch");
    await appendEvent(approverSide, ev);
    const got = await next;
    expect(got.done).toBe(false);
    expect(got.value).toMatchObject({ type: "ApprovalRequested", callId: ev.callId, data: { approvalId: "ap-watch" } });
    watch.stop();
    expect((await iterator.next()).done).toBe(true);
  });
});
