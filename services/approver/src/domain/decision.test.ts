import { generateKeyPairSync, sign } from "node:crypto";
import { describe, expect, it } from "vitest";
import { type ApprovalRequested } from "@warden/contracts/events";
import { type CallMode, type Grade } from "@warden/contracts/descriptor";
import { PolicyDocumentSchema } from "@warden/contracts/policy";
import { approverKeyId, grantStatementOf, verifyGrantSignature } from "@warden/contracts/approval";
import { argsHash } from "@warden/contracts/json";
import { recordOf, type ApprovalRecord } from "./approval-record.js";
import { decidedRecord, denialReason, grantExpiry, judgeDecision, signGrant, type DecisionFacts } from "./decision.js";
import { NO_OUTCOME } from "./settled-on-stream.js";

const args = { customerId: "c1", text: "hello" };
const NOW = new Date("2030-01-01T00:00:00.000Z");

function requested(o: { grade?: Grade; mode?: CallMode; principal?: string; expiresAt?: string } = {}): ApprovalRequested {
  const mode = o.mode ?? "plan";
  return {
    v: 1,
    type: "ApprovalRequested",
    eventId: "req-ev",
    callId: "call1",
    domain: "customer",
    tool: "customer.message",
    principal: o.principal ?? "planner",
    mode,
    ts: "2029-12-31T23:59:00.000Z",
    causationId: "pc-ev",
    causeHash: `sha256:${"c".repeat(64)}`,
    correlationId: "run1",
    data: {
      approvalId: "appr1",
      version: "1.0.0",
      descriptorHash: `sha256:${"d".repeat(64)}`,
      grade: o.grade ?? "send",
      argsHash: argsHash(args),
      args,
      argsPreview: "{}",
      title: "Message a customer",
      expiresAt: o.expiresAt ?? "2030-01-01T00:15:00.000Z",
      approvers: { human: true, requesterMayConfirm: mode === "human" },
      reason: "send needs a person",
      ruleIds: ["default.send.plan"],
      policyVersion: "v1",
    },
  };
}

const doc = PolicyDocumentSchema.parse({
  version: "v1",
  principals: {
    alice: { kind: "human", approves: ["write", "send"] },
    carol: { kind: "human", approves: ["write"] },
    dave: { kind: "human" },
  },
});

function facts(over: Partial<DecisionFacts> = {}): DecisionFacts {
  const req = over.requested ?? requested();
  return {
    record: recordOf(req),
    requested: req,
    outcome: NO_OUTCOME,
    approver: "alice",
    request: { decision: "grant", argsHash: req.data.argsHash },
    doc,
    now: NOW,
    ...over,
  };
}

describe("judgeDecision", () => {
  it("accepts an authorised person deciding a pending approval with the args they saw", () => {
    expect(judgeDecision(facts())).toEqual({ ok: true });
    expect(judgeDecision(facts({ request: { decision: "deny", argsHash: argsHash(args) } }))).toEqual({ ok: true });
  });

  it("refuses an approval it has no record of, or whose request never reached the stream", () => {
    expect(judgeDecision(facts({ record: undefined }))).toMatchObject({ ok: false, refusal: "UNKNOWN_APPROVAL" });
    expect(judgeDecision(facts({ requested: undefined, record: recordOf(requested()) }))).toMatchObject({ ok: false, refusal: "UNKNOWN_APPROVAL" });
    const other: ApprovalRecord = { ...recordOf(requested()), approvalId: "orphan" };
    expect(judgeDecision(facts({ record: other }))).toMatchObject({ ok: false, refusal: "UNKNOWN_APPROVAL" });
  });

  it("refuses an approval already granted or denied: a decision is single-use", () => {
    const base = recordOf(requested());
    const granted = decidedRecord(base, { decision: "deny", approver: "alice", decidedAt: NOW.toISOString(), reason: "no" });
    expect(judgeDecision(facts({ record: granted }))).toMatchObject({ ok: false, refusal: "ALREADY_DECIDED" });
  });

  it("refuses an expired approval, whether or not the sweeper got to it yet", () => {
    const late = requested({ expiresAt: "2029-12-31T23:59:59.000Z" });
    expect(judgeDecision(facts({ requested: late }))).toMatchObject({ ok: false, refusal: "EXPIRED" });
    const swept: ApprovalRecord = { ...recordOf(requested()), status: "expired" };
    expect(judgeDecision(facts({ record: swept }))).toMatchObject({ ok: false, refusal: "EXPIRED" });
  });

  it("refuses a decision made on other args than the requested ones", () => {
    const r = judgeDecision(facts({ request: { decision: "grant", argsHash: argsHash({ ...args, text: "pay me" }) } }));
    expect(r).toMatchObject({ ok: false, refusal: "ARGS_HASH_MISMATCH" });
  });

  it("refuses agents, people who do not approve the grade, and the requester outside human mode", () => {
    expect(judgeDecision(facts({ approver: "bot" }))).toMatchObject({ ok: false, refusal: "NOT_AUTHORISED" });
    expect(judgeDecision(facts({ approver: "carol" }))).toMatchObject({ ok: false, refusal: "NOT_AUTHORISED" });
    expect(judgeDecision(facts({ approver: "alice", requested: requested({ principal: "alice" }) }))).toMatchObject({
      ok: false,
      refusal: "NOT_AUTHORISED",
    });
  });

  it("lets the requester confirm their own call in human mode", () => {
    expect(judgeDecision(facts({ approver: "dave", requested: requested({ mode: "human", principal: "dave" }) }))).toEqual({ ok: true });
  });

  it("refuses an approval the stream already settled, even when the lock record still says pending", () => {
    const req = requested();
    const answer = { ...req, eventId: "x", causationId: req.eventId };
    const denied = { ...answer, type: "ApprovalDenied" as const, ts: "2029-12-31T23:59:30.000Z", data: { approvalId: "appr1", approver: "carol", reason: "no" } };
    const expired = { ...answer, type: "ApprovalExpired" as const, ts: "2029-12-31T23:59:40.000Z", data: { approvalId: "appr1", expiresAt: "2029-12-31T23:59:39.000Z" } };
    const grant = signGrant(req, "alice", NOW, "n1", { keyId: "k", sign: () => "sig" });
    const granted = { ...answer, type: "ApprovalGranted" as const, data: grant };
    expect(judgeDecision(facts({ outcome: { ...NO_OUTCOME, denied } }))).toEqual({
      ok: false,
      refusal: "ALREADY_DECIDED",
      message: "the approval was already denied by carol at 2029-12-31T23:59:30.000Z",
      decided: { decision: "deny", by: "carol", at: "2029-12-31T23:59:30.000Z" },
    });
    expect(judgeDecision(facts({ outcome: { ...NO_OUTCOME, expired } }))).toEqual({
      ok: false,
      refusal: "EXPIRED",
      message: "the approval expired at 2029-12-31T23:59:39.000Z (recorded at 2029-12-31T23:59:40.000Z)",
      decided: { decision: "expire", at: "2029-12-31T23:59:39.000Z" },
    });
    expect(judgeDecision(facts({ outcome: { ...NO_OUTCOME, granted } }))).toEqual({
      ok: false,
      refusal: "ALREADY_DECIDED",
      message: `the approval was already granted by alice at ${NOW.toISOString()}`,
      decided: { decision: "grant", by: "alice", at: NOW.toISOString() },
    });
    expect(judgeDecision(facts({ request: { decision: "deny", argsHash: req.data.argsHash }, outcome: { ...NO_OUTCOME, granted } }))).toMatchObject({
      refusal: "ALREADY_DECIDED",
    });
  });

  it("checks authority before telling anything about the approval's state", () => {
    const decided = decidedRecord(recordOf(requested()), { decision: "deny", approver: "alice", decidedAt: NOW.toISOString(), reason: "no" });
    expect(judgeDecision(facts({ approver: "bot", record: decided }))).toMatchObject({ refusal: "NOT_AUTHORISED" });
  });
});

describe("signGrant", () => {
  it("signs a statement executors verify with the published key, bound to the request", () => {
    const { publicKey, privateKey } = generateKeyPairSync("ed25519");
    const der = publicKey.export({ type: "spki", format: "der" });
    const signer = { keyId: approverKeyId(der), sign: (p: Uint8Array) => sign(null, p, privateKey).toString("base64") };
    const req = requested();
    const grant = signGrant(req, "alice", NOW, "nonce1", signer);
    expect(grant).toMatchObject({ approvalId: "appr1", approver: "alice", argsHash: req.data.argsHash, keyId: signer.keyId, nonce: "nonce1" });
    expect(verifyGrantSignature(der.toString("base64"), grantStatementOf(req.callId, grant), grant.signature)).toBe(true);
    expect(verifyGrantSignature(der.toString("base64"), grantStatementOf("other-call", grant), grant.signature)).toBe(false);
  });

  it("signs a session grant's terms and a session-given grant's origin, so neither can be changed after", () => {
    const { publicKey, privateKey } = generateKeyPairSync("ed25519");
    const der = publicKey.export({ type: "spki", format: "der" }).toString("base64");
    const signer = { keyId: "k", sign: (p: Uint8Array) => sign(null, p, privateKey).toString("base64") };
    const req = requested();
    const session = { expiresAt: "2030-01-01T01:00:00.000Z", args: { customerId: { equals: "c1" } } };
    const made = signGrant(req, "alice", NOW, "n1", signer, { session });
    expect(made.session).toEqual(session);
    expect(verifyGrantSignature(der, grantStatementOf(req.callId, made), made.signature)).toBe(true);
    const widened = { ...made, session: { ...session, args: {} } };
    expect(verifyGrantSignature(der, grantStatementOf(req.callId, widened), made.signature)).toBe(false);
    const longer = { ...made, session: { ...session, expiresAt: "2030-01-02T00:00:00.000Z" } };
    expect(verifyGrantSignature(der, grantStatementOf(req.callId, longer), made.signature)).toBe(false);

    const given = signGrant(req, "alice", NOW, "n2", signer, { bySession: { grantId: "call0", approvalId: "appr0" } });
    expect(verifyGrantSignature(der, grantStatementOf(req.callId, given), given.signature)).toBe(true);
    const { bySession: _dropped, ...asIfAsked } = given;
    expect(verifyGrantSignature(der, grantStatementOf(req.callId, asIfAsked), given.signature)).toBe(false);
  });
});

describe("grantExpiry", () => {
  it("is ten minutes from now, or the approval's own expiry when that comes first", () => {
    expect(grantExpiry("2030-01-01T01:00:00.000Z", NOW)).toBe("2030-01-01T00:10:00.000Z");
    expect(grantExpiry("2030-01-01T00:03:00.000Z", NOW)).toBe("2030-01-01T00:03:00.000Z");
  });
});

describe("denialReason", () => {
  it("keeps the approver's reason, or says who denied when none is given", () => {
    expect(denialReason("alice", "wrong customer")).toBe("wrong customer");
    expect(denialReason("alice", "  ")).toBe("denied by alice");
    expect(denialReason("alice", undefined)).toBe("denied by alice");
  });
});
