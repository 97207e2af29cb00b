import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appendEvent, kvGetJson, kvPutJson, readEvent, requestRpc, silentLogger, type Bus, type StageContext } from "@warden/bus";
import { newId, type ApprovalRequested, type EventType, type ToolPolicyChecked } from "@warden/contracts/events";
import {
  approverKeyKey,
  approverPendingSubject,
  BUCKET_APPROVAL_LOCKS,
  BUCKET_APPROVALS,
  BUCKET_POLICY,
  decideSubject,
} from "@warden/contracts/subjects";
import { type CallMode, type Grade } from "@warden/contracts/descriptor";
import { POLICY_DOCUMENT_KEY, PolicyDocumentSchema, type PolicyDocumentInput } from "@warden/contracts/policy";
import {
  DecisionReplySchema,
  grantStatementOf,
  PendingApprovalSchema,
  verifyGrantSignature,
  type DecisionReply,
  type PendingApproval,
} from "@warden/contracts/approval";
import { argsHash } from "@warden/contracts/json";
import { eventually, putToolRecord, toolRecordOf, useTestNats } from "@warden/testing";
import { openApprovalStore } from "./approval-store.js";
import { ApprovalRecordSchema, recordOf } from "./domain/approval-record.js";
import { approvalDeniedEvent, approvalExpiredEvent, approvalRequestedEvent } from "./domain/approval-events.js";
import { decidedRecord } from "./domain/decision.js";
import { handleToolPolicyChecked } from "./handlers/tool-policy-checked.js";
import { followPolicyDocument } from "@warden/service-kit";
import { createTurns, loadSigningKey } from "@warden/service-kit";
import { startApproverService, type ApproverService } from "./service.js";
import { generateSigningKeyPair as generateApproverKeyPair } from "@warden/service-kit";
import { toolFactsReader } from "./tool-facts.js";
import { policyDecision } from "../test-support/policy-decision.js";

const server = useTestNats();
let service: ApproverService;
const keyPair = generateApproverKeyPair();
/** What the approver service logs, one JSON object per entry. */
const logged: { msg?: string; [k: string]: unknown }[] = [];
const serviceLog = pino({ level: "info" }, { write: (line: string) => void logged.push(JSON.parse(line) as { msg?: string }) });

const BASE_DOC: PolicyDocumentInput = {
  version: "approvers-1",
  principals: {
    alice: { kind: "human", approves: ["write", "send"] },
    carol: { kind: "human", approves: ["write"] },
    bot: { kind: "agent", approves: ["send"] },
    dave: { kind: "human" },
  },
};

const TOOLS: Record<Grade, string> = { read: "kb.search", write: "ticket.submit", send: "customer.message" };

async function useDocument(doc: PolicyDocumentInput): Promise<void> {
  await kvPutJson(await server.bus.kvm.open(BUCKET_POLICY), POLICY_DOCUMENT_KEY, PolicyDocumentSchema.parse(doc));
  await eventually(() => expect(service.document().version).toBe(doc.version));
}

/** A decision on a call of the tool of `grade` (or `tool`) under the base document. */
function checked(o: { mode?: CallMode; grade?: Grade; principal?: string; decision?: ToolPolicyChecked["data"]["decision"]; tool?: string } = {}): ToolPolicyChecked {
  return policyDecision({ ...o, tool: o.tool ?? TOOLS[o.grade ?? "send"], policyVersion: "approvers-1" });
}

async function eventOf<T extends EventType>(ev: ToolPolicyChecked, type: T) {
  return eventually(async () => {
    const found = await readEvent(server.bus, ev.domain, ev.callId, type);
    expect(found, `${type} of ${ev.callId}`).toBeDefined();
    return found!;
  });
}

/** Appends a policy decision and waits for the approval request it leads to. */
async function requestApproval(o: Parameters<typeof checked>[0] = {}) {
  const ev = checked(o);
  expect((await appendEvent(server.bus, ev)).status).toBe("written");
  return { ev, requested: await eventOf(ev, "ApprovalRequested") };
}

async function decide(approver: string, approvalId: string, body: unknown): Promise<DecisionReply> {
  const reply = await requestRpc(server.bus, decideSubject(approver, approvalId), body);
  expect(reply.ok).toBe(true);
  return DecisionReplySchema.parse(reply.ok ? reply.value : undefined);
}

/** The pending list `approver` gets, as `via` asks for it (the admin connection unless given). */
async function pending(approver: string, via: Bus = server.bus): Promise<PendingApproval[]> {
  const reply = await requestRpc(via, approverPendingSubject(approver), {});
  expect(reply).toMatchObject({ ok: true });
  return PendingApprovalSchema.array().parse(reply.ok ? reply.value : undefined);
}

function listedCalls(list: readonly PendingApproval[], calls: readonly { callId: string }[]): string[] {
  const ours = new Set(calls.map((c) => c.callId));
  return list.filter((p) => ours.has(p.callId)).map((p) => p.callId);
}

const stamp = () => ({ eventId: newId(), ts: new Date().toISOString() });

/** Sets the lock record of an approval back to `record`: what someone able to write the bucket could do. */
async function rewriteLock(approvalId: string, record: unknown): Promise<void> {
  await kvPutJson(await server.bus.kvm.open(BUCKET_APPROVAL_LOCKS), approvalId, record);
}

async function lockOf(approvalId: string) {
  return (await kvGetJson(await server.bus.kvm.open(BUCKET_APPROVAL_LOCKS), approvalId, ApprovalRecordSchema))?.value;
}

async function recordsOfCall(callId: string) {
  const kv = await server.bus.kvm.open(BUCKET_APPROVAL_LOCKS);
  const found = [];
  for await (const key of await kv.keys()) {
    const e = await kvGetJson(kv, key, ApprovalRecordSchema);
    if (e?.value.callId === callId) found.push(e);
  }
  return found;
}

/**
 * The approver's handler of policy decisions on its own, outside the service, so that only the test
 * delivers to it; what it opened is closed after `use`.
 */
async function withDecisionHandler(use: (handle: ReturnType<typeof handleToolPolicyChecked>, ctx: StageContext) => Promise<void>): Promise<void> {
  const documents = await followPolicyDocument(server.bus, silentLogger());
  const approvals = await openApprovalStore(server.bus, silentLogger());
  const handle = handleToolPolicyChecked({ bus: server.bus, documents, approvals, factsOf: await toolFactsReader(server.bus), turns: createTurns(), signer: loadSigningKey(undefined) });
  const ctx = { log: silentLogger(), deliveryCount: 1 } as unknown as StageContext;
  try {
    await use(handle, ctx);
  } finally {
    approvals.stop();
    documents.stop();
  }
}

beforeAll(async () => {
  await kvPutJson(await server.bus.kvm.open(BUCKET_POLICY), POLICY_DOCUMENT_KEY, PolicyDocumentSchema.parse(BASE_DOC));
  await putToolRecord(
    server.bus,
    toolRecordOf({
      name: "customer.message",
      version: "1.0.0",
      title: "Message a customer",
      description: "Use it to send a message to a customer; they read it at once.",
      inputSchema: { type: "object" },
      grade: "send",
    }),
  );
  // the approver connects as itself: the rights docs/security.md gives its role, no more
  const approverBus = await server.nats.connectAs({ kind: "service", name: "approver", role: "approver" });
  service = await startApproverService({ bus: approverBus, log: serviceLog, signingKeyPem: keyPair.privateKeyPem, sweepIntervalMs: 100, repairGraceMs: 200 });
});
afterAll(async () => {
  await service.stop();
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
    await withDecisionHandler(async (handle, ctx) => {
      // not on the stream, so only these racing "deliveries" handle it
      const ev = checked();
      const outcomes = await Promise.all([handle(ev, ctx), handle(ev, ctx), handle(ev, ctx)]);
      expect(outcomes).toEqual([{ kind: "ack" }, { kind: "ack" }, { kind: "ack" }]);
      const requested = await eventOf(ev, "ApprovalRequested");
      await handle(ev, ctx);
      expect((await readEvent(server.bus, ev.domain, ev.callId, "ApprovalRequested"))?.eventId).toBe(requested.eventId);
      const records = await recordsOfCall(ev.callId);
      expect(records.map((r) => r.value.approvalId)).toEqual([requested.data.approvalId]);
    });
  });

  it("refuses a requester's approval past approvalQuota.maxOpenPerRequester with APPROVAL_QUOTA, and still asks for another requester's", async () => {
    await useDocument({ ...BASE_DOC, version: "quota-2", approvalQuota: { maxOpenPerRequester: 2 } });
    try {
      const flooder = `flooder-${newId()}`;
      const burst = Array.from({ length: 5 }, () => checked({ principal: flooder }));
      await Promise.all(burst.map(async (ev) => expect((await appendEvent(server.bus, ev)).status).toBe("written")));
      const outcomes = await Promise.all(
        burst.map((ev) =>
          eventually(async () => {
            const requested = await readEvent(server.bus, ev.domain, ev.callId, "ApprovalRequested");
            const rejected = await readEvent(server.bus, ev.domain, ev.callId, "ToolCallRejected");
            expect(requested ?? rejected).toBeDefined();
            return requested ?? rejected!;
          }),
        ),
      );
      expect(outcomes.filter((e) => e.type === "ApprovalRequested")).toHaveLength(2);
      const refused = outcomes.filter((e) => e.type === "ToolCallRejected");
      expect(refused).toHaveLength(3);
      for (const r of refused) {
        expect(r.type === "ToolCallRejected" && r.data).toMatchObject({ stage: "approver", error: { code: "APPROVAL_QUOTA", retryable: true, details: { open: 2, max: 2 } } });
      }
      // another requester is not buried under the flood
      await requestApproval({ principal: `other-${newId()}` });
      // a decided approval frees its place in the quota
      const first = outcomes.find((e) => e.type === "ApprovalRequested")!;
      if (first.type !== "ApprovalRequested") throw new Error("expected an approval request");
      expect(await decide("alice", first.data.approvalId, { decision: "deny", argsHash: first.data.argsHash, reason: "no" })).toMatchObject({ ok: true });
      await eventually(async () => expect((await lockOf(first.data.approvalId))?.status).toBe("denied"));
      await requestApproval({ principal: flooder });
    } finally {
      await useDocument(BASE_DOC);
    }
  });

  it("acts only on require_approval decisions", async () => {
    await withDecisionHandler(async (handle, ctx) => {
      for (const decision of ["allow", "deny"] as const) {
        const ev = checked({ decision });
        expect(await handle(ev, ctx)).toEqual({ kind: "ack" });
        expect(await readEvent(server.bus, ev.domain, ev.callId, "ApprovalRequested")).toBeUndefined();
        expect(await recordsOfCall(ev.callId)).toEqual([]);
      }
    });
  });
});

describe("decisions", () => {
  it("accepts a grant once, signs it, and refuses the next decision as ALREADY_DECIDED", async () => {
    const { ev, requested } = await requestApproval();
    const id = requested.data.approvalId;
    const before = Date.now();
    const reply = await decide("alice", id, { decision: "grant", argsHash: requested.data.argsHash });
    expect(reply).toEqual({ ok: true, approvalId: id, callId: ev.callId, decision: "grant", argsHash: requested.data.argsHash });
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
    // signed with the provisioned key, whose public half executors pin; nothing is published in a bucket
    expect(service.signingKey).toEqual({ keyId: keyPair.keyId, publicKeyDerBase64: keyPair.publicKeyDerBase64 });
    expect(verifyGrantSignature(keyPair.publicKeyDerBase64, grantStatementOf(granted.callId, granted.data), granted.data.signature)).toBe(true);
    expect(await (await server.bus.kvm.open(BUCKET_POLICY)).get(approverKeyKey(granted.data.keyId))).toBeNull();

    expect(await decide("alice", id, { decision: "grant", argsHash: requested.data.argsHash })).toMatchObject({ ok: false, refusal: "ALREADY_DECIDED" });
    expect(await decide("alice", id, { decision: "deny", argsHash: requested.data.argsHash })).toMatchObject({ ok: false, refusal: "ALREADY_DECIDED" });
    expect(await readEvent(server.bus, ev.domain, ev.callId, "ApprovalDenied")).toBeUndefined();
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
    expect(await readEvent(server.bus, ev.domain, ev.callId, "ApprovalGranted")).toBeUndefined();
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
      expect(await readEvent(server.bus, ev.domain, ev.callId, "ApprovalGranted")).toBeUndefined();
    } finally {
      await useDocument(BASE_DOC);
    }
  });

  it("appends the decision event a crash left missing after the record was decided", async () => {
    const { ev, requested } = await requestApproval();
    const kv = await server.bus.kvm.open(BUCKET_APPROVAL_LOCKS);
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
    const kv = await server.bus.kvm.open(BUCKET_APPROVAL_LOCKS);
    const real = await kvGetJson(kv, requested.data.approvalId, ApprovalRecordSchema);
    await kvPutJson(kv, orphanId, { ...real!.value, approvalId: orphanId, expiresAt: new Date(Date.now() - 1000).toISOString() });
    await eventually(async () => expect(await kvGetJson(kv, orphanId, ApprovalRecordSchema)).toBeUndefined());
    expect(await readEvent(server.bus, ev.domain, ev.callId, "ApprovalExpired")).toBeUndefined();
    expect((await decide("alice", requested.data.approvalId, { decision: "grant", argsHash: requested.data.argsHash })).ok).toBe(true);
  });
});

describe("decisions on approvals the stream already settled", () => {
  it("refuses a grant when the stream holds a denial the lock record does not show, saying who denied and when", async () => {
    const { ev, requested } = await requestApproval();
    const denied = approvalDeniedEvent(requested, "carol", "not this customer", stamp());
    expect((await appendEvent(server.bus, denied)).status).toBe("written");
    expect((await lockOf(requested.data.approvalId))?.status).toBe("pending");
    expect(await decide("alice", requested.data.approvalId, { decision: "grant", argsHash: requested.data.argsHash })).toEqual({
      ok: false,
      refusal: "ALREADY_DECIDED",
      message: `the approval was already denied by carol at ${denied.ts}`,
      decided: { decision: "deny", by: "carol", at: denied.ts },
    });
    expect(await readEvent(server.bus, ev.domain, ev.callId, "ApprovalGranted")).toBeUndefined();
  });

  it("refuses a decision on an approval whose expiry is on the stream, though its record says pending", async () => {
    const { ev, requested } = await requestApproval();
    const expired = approvalExpiredEvent(requested, stamp());
    await appendEvent(server.bus, expired);
    expect(await decide("alice", requested.data.approvalId, { decision: "grant", argsHash: requested.data.argsHash })).toEqual({
      ok: false,
      refusal: "EXPIRED",
      message: `the approval expired at ${requested.data.expiresAt} (recorded at ${expired.ts})`,
      decided: { decision: "expire", at: requested.data.expiresAt },
    });
    expect(await readEvent(server.bus, ev.domain, ev.callId, "ApprovalGranted")).toBeUndefined();
  });

  it("refuses a second decision after a granted approval's lock record was rewritten to pending", async () => {
    const { ev, requested } = await requestApproval();
    expect((await decide("alice", requested.data.approvalId, { decision: "grant", argsHash: requested.data.argsHash })).ok).toBe(true);
    const granted = await eventOf(ev, "ApprovalGranted");
    await rewriteLock(requested.data.approvalId, recordOf(requested));
    await eventually(async () => expect((await lockOf(requested.data.approvalId))?.status).toBe("pending"));
    for (const decision of ["deny", "grant"] as const) {
      expect(await decide("alice", requested.data.approvalId, { decision, argsHash: requested.data.argsHash })).toEqual({
        ok: false,
        refusal: "ALREADY_DECIDED",
        message: `the approval was already granted by alice at ${granted.data.grantedAt}`,
        decided: { decision: "grant", by: "alice", at: granted.data.grantedAt },
      });
    }
    expect(await readEvent(server.bus, ev.domain, ev.callId, "ApprovalDenied")).toBeUndefined();
    expect((await readEvent(server.bus, ev.domain, ev.callId, "ApprovalGranted"))?.eventId).toBe(granted.eventId);
  });

  it("never expires an overdue approval the stream already settled: its lock record is aligned with the stream", async () => {
    await useDocument({ ...BASE_DOC, version: "short-ttl-settled", approvalTtlSeconds: { write: 1, send: 900 } });
    try {
      const { ev, requested } = await requestApproval({ grade: "write", mode: "llm", principal: "bot" });
      const denied = approvalDeniedEvent(requested, "carol", "no", stamp());
      await appendEvent(server.bus, denied);
      await eventually(async () => expect(await lockOf(requested.data.approvalId)).toMatchObject({ status: "denied", decision: { approver: "carol" } }), 5_000);
      expect(await readEvent(server.bus, ev.domain, ev.callId, "ApprovalExpired")).toBeUndefined();
    } finally {
      await useDocument(BASE_DOC);
    }
  });

  it("does not append a missing grant a crash left in the record when the stream holds a denial", async () => {
    const { ev, requested } = await requestApproval();
    const entry = await kvGetJson(await server.bus.kvm.open(BUCKET_APPROVAL_LOCKS), requested.data.approvalId, ApprovalRecordSchema);
    const grant = { ...requested.data, approver: "alice", grantedAt: new Date().toISOString(), nonce: newId(), signature: "x", keyId: keyPair.keyId };
    const made = { decision: "grant" as const, approver: "alice", decidedAt: new Date().toISOString(), grant: {
      approvalId: grant.approvalId, approver: grant.approver, argsHash: grant.argsHash, descriptorHash: grant.descriptorHash, version: grant.version,
      grantedAt: grant.grantedAt, expiresAt: requested.data.expiresAt, nonce: grant.nonce, signature: grant.signature, keyId: grant.keyId,
    } };
    await appendEvent(server.bus, approvalDeniedEvent(requested, "carol", "no", stamp()));
    await rewriteLock(requested.data.approvalId, decidedRecord(entry!.value, made));
    await eventually(() =>
      expect(logged.some((l) => l.msg === "decision event not appended: the stream settled the approval otherwise" && l["approvalId"] === requested.data.approvalId)).toBe(true),
    );
    expect(await readEvent(server.bus, ev.domain, ev.callId, "ApprovalGranted")).toBeUndefined();
  });
});

describe("pending approvals", () => {
  const doc = PolicyDocumentSchema.parse(BASE_DOC);
  /** An ApprovalRequested written straight to the stream (no lock record, no projection). */
  async function appendRequest(o: Parameters<typeof checked>[0] = {}, tamper?: (r: ApprovalRequested) => ApprovalRequested) {
    const honest = approvalRequestedEvent(checked(o), { approvalId: newId(), title: "Message a customer", doc, now: new Date() }, stamp());
    const requested = tamper ? tamper(honest) : honest;
    expect((await appendEvent(server.bus, requested)).status).toBe("written");
    return requested;
  }

  it("lists the open approvals the asking approver may decide, from the stream, oldest first", async () => {
    const { requested: send } = await requestApproval({ grade: "send" });
    const { requested: write } = await requestApproval({ grade: "write", mode: "llm", principal: "bot" });
    const calls = [send, write];
    // read-your-writes: no wait once the caller has seen its ApprovalRequested
    const alice = await pending("alice");
    expect(listedCalls(alice, calls)).toEqual([send.callId, write.callId]);
    // the card's other fields (description, flags, chain, deciders) are the e2e approvals tests' concern
    expect(alice.find((p) => p.callId === send.callId)).toMatchObject({
      approvalId: send.data.approvalId,
      callId: send.callId,
      domain: send.domain,
      tool: send.tool,
      title: "Message a customer",
      grade: "send",
      principal: "planner",
      mode: "plan",
      argsHash: send.data.argsHash,
      argsPreview: JSON.stringify({ customerId: "c-42", text: (send.data.args as { text: string }).text }),
      reason: "a person must confirm",
      requestedAt: send.ts,
      expiresAt: send.data.expiresAt,
      approvers: { human: true, requesterMayConfirm: false },
    });
    expect(listedCalls(await pending("carol"), calls)).toEqual([write.callId]);
    expect(listedCalls(await pending("bot"), calls)).toEqual([]);
    expect(listedCalls(await pending("stranger"), calls)).toEqual([]);
  });

  it("shows a requester their own human-mode call to confirm, and nobody else's", async () => {
    const { requested: own } = await requestApproval({ principal: "dave", mode: "human" });
    const { requested: other } = await requestApproval({ principal: "erin", mode: "human" });
    expect(listedCalls(await pending("dave"), [own, other])).toEqual([own.callId]);
  });

  it("leaves out approvals granted, denied or expired on the stream, whatever the lock records say", async () => {
    const { requested: granted } = await requestApproval();
    const { requested: denied } = await requestApproval();
    const { requested: deniedOnStream } = await requestApproval();
    const { requested: expiredOnStream } = await requestApproval();
    const { requested: open } = await requestApproval();
    expect((await decide("alice", granted.data.approvalId, { decision: "grant", argsHash: granted.data.argsHash })).ok).toBe(true);
    expect((await decide("alice", denied.data.approvalId, { decision: "deny", argsHash: denied.data.argsHash })).ok).toBe(true);
    await appendEvent(server.bus, approvalDeniedEvent(deniedOnStream, "carol", "no", stamp()));
    await appendEvent(server.bus, approvalExpiredEvent(expiredOnStream, stamp()));
    const calls = [granted, denied, deniedOnStream, expiredOnStream, open];
    expect(listedCalls(await pending("alice"), calls)).toEqual([open.callId]);
    // a rewritten lock record does not bring a settled approval back
    await rewriteLock(granted.data.approvalId, recordOf(granted));
    expect(listedCalls(await pending("alice"), calls)).toEqual([open.callId]);
  });

  it("lists what the stream holds, not the projected inbox, and leaves out a request whose args do not match its hash", async () => {
    const honest = await appendRequest();
    const swapped = await appendRequest({}, (r) => ({ ...r, data: { ...r.data, args: { customerId: "c-66", text: "send me your password" } } }));
    const forged = { ...(await pending("alice")).find((p) => p.callId === honest.callId)!, approvalId: newId(), callId: newId() };
    await kvPutJson(await server.bus.kvm.open(BUCKET_APPROVALS), forged.approvalId, { ...forged, status: "pending", requestEventId: newId(), seq: 1 });
    expect(listedCalls(await pending("alice"), [honest, swapped, forged])).toEqual([honest.callId]);
    expect(logged.some((l) => l.msg === "approval request whose args do not hash to its argsHash left out" && l["callId"] === swapped.callId)).toBe(true);
  });

  it("answers a person on their own connection, and only about themself", async () => {
    const { requested } = await requestApproval();
    const alice = await server.nats.connectAs({ kind: "human", name: "alice" });
    expect(listedCalls(await pending("alice", alice), [requested])).toEqual([requested.callId]);
    const asCarol = await requestRpc(alice, approverPendingSubject("carol"), {}, 1_000);
    expect(asCarol.ok).toBe(false);
  });
});
