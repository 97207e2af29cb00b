import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appendEvent, kvGetJson, kvPutJson, readEvent, requestRpc, silentLogger, type Bus, type StageContext } from "@warden/bus";
import {
  approverKeyKey,
  ApproverPublicKeySchema,
  argsHash,
  BUCKET_APPROVAL_LOCKS,
  BUCKET_POLICY,
  BUCKET_TOOLS,
  decideSubject,
  DecisionReplySchema,
  descriptorHash,
  grantStatementOf,
  newId,
  POLICY_DOCUMENT_KEY,
  PolicyDocumentSchema,
  toolKey,
  ToolDescriptorSchema,
  verifyGrantSignature,
  type CallMode,
  type DecisionReply,
  type EventType,
  type Grade,
  type PolicyDocumentInput,
  type ToolPolicyChecked,
} from "@warden/contracts";
import { eventually } from "../../../test/support/eventually.js";
import { startTestNats, type TestNats } from "../../../test/support/nats.js";
import { openApprovalStore } from "./approval-store.js";
import { ApprovalRecordSchema } from "./domain/approval-record.js";
import { decidedRecord } from "./domain/decision.js";
import { approvalRequestHandler } from "./handlers/tool-policy-checked.js";
import { watchPolicyDocument } from "./policy-document.js";
import { startApproverService, type ApproverService } from "./service.js";
import { toolTitleReader } from "./tool-titles.js";

let nats: TestNats;
let bus: Bus;
let service: ApproverService;

const BASE_DOC: PolicyDocumentInput = {
  version: "approvers-1",
  principals: {
    alice: { kind: "human", approves: ["write", "send"] },
    carol: { kind: "human", approves: ["write"] },
    bot: { kind: "agent", approves: ["send"] },
  },
};

const TOOLS: Record<Grade, string> = { read: "kb.search", write: "ticket.submit", send: "customer.message" };

async function useDocument(doc: PolicyDocumentInput): Promise<void> {
  await kvPutJson(await bus.kvm.open(BUCKET_POLICY), POLICY_DOCUMENT_KEY, PolicyDocumentSchema.parse(doc));
  await eventually(() => expect(service.document().version).toBe(doc.version));
}

function checked(o: { mode?: CallMode; grade?: Grade; principal?: string; decision?: ToolPolicyChecked["data"]["decision"]; tool?: string } = {}): ToolPolicyChecked {
  const grade = o.grade ?? "send";
  const mode = o.mode ?? "plan";
  const tool = o.tool ?? TOOLS[grade];
  const args = { customerId: "c-42", text: `hello ${newId()}` };
  return {
    v: 1,
    type: "ToolPolicyChecked",
    eventId: newId(),
    callId: newId(),
    domain: tool.split(".")[0]!,
    tool,
    principal: o.principal ?? "planner",
    mode,
    ts: new Date().toISOString(),
    causationId: newId(),
    correlationId: newId(),
    data: {
      version: "1.0.0",
      descriptorHash: `sha256:${"d".repeat(64)}`,
      grade,
      argsHash: argsHash(args),
      args,
      decision: o.decision ?? "require_approval",
      reason: "a person must confirm",
      ruleIds: [`default.${grade}.${mode}`],
      policyVersion: "approvers-1",
    },
  };
}

async function eventOf<T extends EventType>(ev: ToolPolicyChecked, type: T) {
  return eventually(async () => {
    const found = await readEvent(bus, ev.domain, ev.callId, type);
    expect(found, `${type} of ${ev.callId}`).toBeDefined();
    return found!;
  });
}

/** Appends a policy decision and waits for the approval request it leads to. */
async function requestApproval(o: Parameters<typeof checked>[0] = {}) {
  const ev = checked(o);
  expect((await appendEvent(bus, ev)).status).toBe("written");
  return { ev, requested: await eventOf(ev, "ApprovalRequested") };
}

async function decide(approver: string, approvalId: string, body: unknown): Promise<DecisionReply> {
  const reply = await requestRpc(bus, decideSubject(approver, approvalId), body);
  expect(reply.ok).toBe(true);
  return DecisionReplySchema.parse(reply.ok ? reply.value : undefined);
}

async function recordsOfCall(callId: string) {
  const kv = await bus.kvm.open(BUCKET_APPROVAL_LOCKS);
  const found = [];
  for await (const key of await kv.keys()) {
    const e = await kvGetJson(kv, key, ApprovalRecordSchema);
    if (e?.value.callId === callId) found.push(e);
  }
  return found;
}

beforeAll(async () => {
  nats = await startTestNats();
  bus = await nats.bus();
  await kvPutJson(await bus.kvm.open(BUCKET_POLICY), POLICY_DOCUMENT_KEY, PolicyDocumentSchema.parse(BASE_DOC));
  const descriptor = ToolDescriptorSchema.parse({
    name: "customer.message",
    version: "1.0.0",
    title: "Message a customer",
    description: "Use it to send a message to a customer; they read it at once.",
    inputSchema: { type: "object" },
    grade: "send",
  });
  const now = new Date().toISOString();
  await kvPutJson(await bus.kvm.open(BUCKET_TOOLS), toolKey(descriptor.name, descriptor.version), {
    descriptor,
    descriptorHash: descriptorHash(descriptor),
    status: "enabled",
    registeredAt: now,
    statusChangedAt: now,
  });
  service = await startApproverService({ bus, log: silentLogger(), sweepIntervalMs: 100, repairGraceMs: 200 });
});
afterAll(async () => {
  await service.stop();
  await nats.stop();
});

describe("approval requests", () => {
  it("asks for approval with the call's hashes, args, preview, title, expiry and approvers", async () => {
    await useDocument(BASE_DOC);
    const before = Date.now();
    const { ev, requested } = await requestApproval({ mode: "plan" });
    expect(requested).toMatchObject({ causationId: ev.eventId, principal: "planner", mode: "plan", correlationId: ev.correlationId });
    const d = requested.data;
    expect(d).toMatchObject({
      argsHash: ev.data.argsHash,
      descriptorHash: ev.data.descriptorHash,
      version: "1.0.0",
      grade: "send",
      args: ev.data.args,
      title: "Message a customer",
      approvers: { human: true, requesterMayConfirm: false },
      reason: "a person must confirm",
      ruleIds: ["default.send.plan"],
      policyVersion: "approvers-1",
    });
    expect(JSON.parse(d.argsPreview)).toEqual(ev.data.args);
    const ttl = Date.parse(d.expiresAt) - before;
    expect(ttl).toBeGreaterThan(899_000);
    expect(ttl).toBeLessThanOrEqual(901_000);
    const records = await recordsOfCall(ev.callId);
    expect(records.map((r) => [r.value.approvalId, r.value.status])).toEqual([[d.approvalId, "pending"]]);
  });

  it("titles an approval with the tool name when the registry does not know the tool", async () => {
    const { requested } = await requestApproval({ grade: "write", mode: "llm" });
    expect(requested.data.title).toBe("ticket.submit");
  });

  it("writes ApprovalRequested once, with one inbox record, however often the decision is delivered", async () => {
    const documents = await watchPolicyDocument(bus, silentLogger());
    const approvals = await openApprovalStore(bus, silentLogger());
    const handle = approvalRequestHandler({ bus, documents, approvals, titleOf: await toolTitleReader(bus) });
    const ctx = { log: silentLogger(), deliveryCount: 1 } as unknown as StageContext;
    try {
      // not on the stream, so only these racing "deliveries" handle it
      const ev = checked();
      const outcomes = await Promise.all([handle(ev, ctx), handle(ev, ctx), handle(ev, ctx)]);
      expect(outcomes).toEqual([{ kind: "ack" }, { kind: "ack" }, { kind: "ack" }]);
      const requested = await eventOf(ev, "ApprovalRequested");
      await handle(ev, ctx);
      expect((await readEvent(bus, ev.domain, ev.callId, "ApprovalRequested"))?.eventId).toBe(requested.eventId);
      const records = await recordsOfCall(ev.callId);
      expect(records.map((r) => r.value.approvalId)).toEqual([requested.data.approvalId]);
    } finally {
      approvals.stop();
      documents.stop();
    }
  });

  it("acts only on require_approval decisions", async () => {
    const documents = await watchPolicyDocument(bus, silentLogger());
    const approvals = await openApprovalStore(bus, silentLogger());
    const handle = approvalRequestHandler({ bus, documents, approvals, titleOf: await toolTitleReader(bus) });
    const ctx = { log: silentLogger(), deliveryCount: 1 } as unknown as StageContext;
    try {
      for (const decision of ["allow", "deny"] as const) {
        const ev = checked({ decision });
        expect(await handle(ev, ctx)).toEqual({ kind: "ack" });
        expect(await readEvent(bus, ev.domain, ev.callId, "ApprovalRequested")).toBeUndefined();
        expect(await recordsOfCall(ev.callId)).toEqual([]);
      }
    } finally {
      approvals.stop();
      documents.stop();
    }
  });
});

describe("decisions", () => {
  it("accepts a grant once, signs it, and refuses the next decision as ALREADY_DECIDED", async () => {
    const { ev, requested } = await requestApproval();
    const id = requested.data.approvalId;
    const before = Date.now();
    const reply = await decide("alice", id, { decision: "grant", argsHash: requested.data.argsHash });
    expect(reply).toEqual({ ok: true, approvalId: id, callId: ev.callId, decision: "grant" });
    const granted = await eventOf(ev, "ApprovalGranted");
    expect(granted.causationId).toBe(requested.eventId);
    expect(granted.data).toMatchObject({
      approvalId: id,
      approver: "alice",
      argsHash: requested.data.argsHash,
      descriptorHash: requested.data.descriptorHash,
      version: "1.0.0",
      keyId: service.signingKey.keyId,
    });
    expect(Date.parse(granted.data.expiresAt)).toBeLessThanOrEqual(before + 10 * 60_000 + 5_000);
    expect(Date.parse(granted.data.expiresAt)).toBeLessThanOrEqual(Date.parse(requested.data.expiresAt));
    const published = await kvGetJson(await bus.kvm.open(BUCKET_POLICY), approverKeyKey(granted.data.keyId), ApproverPublicKeySchema);
    expect(published?.value).toBe(service.signingKey.publicKeyDerBase64);
    expect(verifyGrantSignature(published!.value, grantStatementOf(granted.callId, granted.data), granted.data.signature)).toBe(true);

    expect(await decide("alice", id, { decision: "grant", argsHash: requested.data.argsHash })).toMatchObject({ ok: false, refusal: "ALREADY_DECIDED" });
    expect(await decide("alice", id, { decision: "deny", argsHash: requested.data.argsHash })).toMatchObject({ ok: false, refusal: "ALREADY_DECIDED" });
    expect(await readEvent(bus, ev.domain, ev.callId, "ApprovalDenied")).toBeUndefined();
  });

  it("lets exactly one of many racing grants through", async () => {
    const { requested } = await requestApproval();
    const body = { decision: "grant", argsHash: requested.data.argsHash };
    const replies = await Promise.all(Array.from({ length: 5 }, () => decide("alice", requested.data.approvalId, body)));
    expect(replies.filter((r) => r.ok)).toHaveLength(1);
    expect(replies.filter((r) => !r.ok).map((r) => !r.ok && r.refusal)).toEqual(Array(4).fill("ALREADY_DECIDED"));
  });

  it("refuses a decision on other args than the requested ones, and leaves the approval open", async () => {
    const { ev, requested } = await requestApproval();
    const id = requested.data.approvalId;
    const wrong = argsHash({ customerId: "c-42", text: "something else" });
    expect(await decide("alice", id, { decision: "grant", argsHash: wrong })).toMatchObject({ ok: false, refusal: "ARGS_HASH_MISMATCH" });
    expect(await readEvent(bus, ev.domain, ev.callId, "ApprovalGranted")).toBeUndefined();
    expect((await decide("alice", id, { decision: "grant", argsHash: requested.data.argsHash })).ok).toBe(true);
  });

  it("refuses agents, people who may not approve the grade, and the requester outside human mode", async () => {
    const { requested } = await requestApproval({ principal: "alice", mode: "plan" });
    const id = requested.data.approvalId;
    const body = { decision: "grant", argsHash: requested.data.argsHash };
    for (const who of ["bot", "carol", "alice", "stranger"]) {
      expect(await decide(who, id, body), who).toMatchObject({ ok: false, refusal: "NOT_AUTHORISED" });
    }
    const write = await requestApproval({ grade: "write", mode: "llm", principal: "bot" });
    expect((await decide("carol", write.requested.data.approvalId, { decision: "grant", argsHash: write.requested.data.argsHash })).ok).toBe(true);
  });

  it("lets the requester confirm their own send in human mode, and nobody else without the grade", async () => {
    const { ev, requested } = await requestApproval({ principal: "dave", mode: "human" });
    expect(requested.data.approvers).toEqual({ human: true, requesterMayConfirm: true });
    const body = { decision: "grant", argsHash: requested.data.argsHash };
    expect(await decide("carol", requested.data.approvalId, body)).toMatchObject({ ok: false, refusal: "NOT_AUTHORISED" });
    expect((await decide("dave", requested.data.approvalId, body)).ok).toBe(true);
    expect((await eventOf(ev, "ApprovalGranted")).data.approver).toBe("dave");
  });

  it("records a denial's reason in ApprovalDenied", async () => {
    const { ev, requested } = await requestApproval();
    const reply = await decide("alice", requested.data.approvalId, { decision: "deny", argsHash: requested.data.argsHash, reason: "wrong customer" });
    expect(reply).toMatchObject({ ok: true, decision: "deny" });
    const denied = await eventOf(ev, "ApprovalDenied");
    expect(denied.data).toEqual({ approvalId: requested.data.approvalId, approver: "alice", reason: "wrong customer" });
    expect(denied.causationId).toBe(requested.eventId);
  });

  it("refuses unknown approvals and malformed decisions", async () => {
    expect(await decide("alice", newId(), { decision: "grant", argsHash: argsHash({}) })).toMatchObject({ ok: false, refusal: "UNKNOWN_APPROVAL" });
    const { requested } = await requestApproval();
    expect(await decide("alice", requested.data.approvalId, { decision: "maybe", argsHash: "x" })).toMatchObject({ ok: false, refusal: "MALFORMED" });
    expect(await decide("alice", requested.data.approvalId, { decision: "grant", argsHash: "x", approver: "bob" })).toMatchObject({
      ok: false,
      refusal: "MALFORMED",
    });
  });
});

describe("the sweeper", () => {
  it("expires an approval past its lifetime with ApprovalExpired, after which decisions are refused as EXPIRED", async () => {
    await useDocument({ ...BASE_DOC, version: "short-ttl", approvalTtlSeconds: { write: 1, send: 900 } });
    try {
      const { ev, requested } = await requestApproval({ grade: "write", mode: "llm", principal: "bot" });
      const expired = await eventOf(ev, "ApprovalExpired");
      expect(expired.data).toEqual({ approvalId: requested.data.approvalId, expiresAt: requested.data.expiresAt });
      expect(Date.parse(expired.ts)).toBeGreaterThanOrEqual(Date.parse(requested.data.expiresAt));
      const reply = await decide("alice", requested.data.approvalId, { decision: "grant", argsHash: requested.data.argsHash });
      expect(reply).toMatchObject({ ok: false, refusal: "EXPIRED" });
      expect(await readEvent(bus, ev.domain, ev.callId, "ApprovalGranted")).toBeUndefined();
    } finally {
      await useDocument(BASE_DOC);
    }
  });

  it("appends the decision event a crash left missing after the record was decided", async () => {
    const { ev, requested } = await requestApproval();
    const kv = await bus.kvm.open(BUCKET_APPROVAL_LOCKS);
    const entry = await kvGetJson(kv, requested.data.approvalId, ApprovalRecordSchema);
    // what a decider that died right after its compare-and-set leaves behind
    const decided = decidedRecord(entry!.value, { decision: "deny", approver: "alice", decidedAt: new Date().toISOString(), reason: "crashed mid-way" });
    await kv.update(requested.data.approvalId, new TextEncoder().encode(JSON.stringify(decided)), entry!.revision);
    const denied = await eventOf(ev, "ApprovalDenied");
    expect(denied.data).toEqual({ approvalId: requested.data.approvalId, approver: "alice", reason: "crashed mid-way" });
  });

  it("removes an overdue record whose request never reached the stream, without expiring the call's real approval", async () => {
    const { ev, requested } = await requestApproval();
    const orphanId = newId();
    const kv = await bus.kvm.open(BUCKET_APPROVAL_LOCKS);
    const real = await kvGetJson(kv, requested.data.approvalId, ApprovalRecordSchema);
    await kvPutJson(kv, orphanId, { ...real!.value, approvalId: orphanId, expiresAt: new Date(Date.now() - 1000).toISOString() });
    await eventually(async () => expect(await kvGetJson(kv, orphanId, ApprovalRecordSchema)).toBeUndefined());
    expect(await readEvent(bus, ev.domain, ev.callId, "ApprovalExpired")).toBeUndefined();
    expect((await decide("alice", requested.data.approvalId, { decision: "grant", argsHash: requested.data.argsHash })).ok).toBe(true);
  });
});
