import { generateKeyPairSync, sign } from "node:crypto";
import { describe, expect, it } from "vitest";
import { eventHash, type ApprovalGranted, type ApprovalRequested } from "@warden/contracts/events";
import { grantSigningPayload, grantStatementOf, verifyGrantSignature } from "@warden/contracts/approval";
import { argsHash } from "@warden/contracts/json";
import { checkApprovalOpen, checkGrant } from "./check-grant.js";

const { publicKey, privateKey } = generateKeyPairSync("ed25519");
const keyB64 = publicKey.export({ type: "spki", format: "der" }).toString("base64");
const other = generateKeyPairSync("ed25519").publicKey.export({ type: "spki", format: "der" }).toString("base64");
const args = { customerId: "c1", text: "hello" };
const dHash = `sha256:${"d".repeat(64)}`;
const now = new Date("2030-01-01T00:00:00.000Z");
const envelope = {
  v: 1 as const,
  callId: "call1",
  domain: "customer",
  tool: "customer.message",
  principal: "bot",
  mode: "plan" as const,
  ts: now.toISOString(),
  correlationId: "run1",
};

const request: ApprovalRequested = {
  ...envelope,
  type: "ApprovalRequested",
  eventId: "req1",
  causationId: "pc1",
  causeHash: `sha256:${"c".repeat(64)}`,
  data: {
    approvalId: "ap1",
    version: "1.0.0",
    descriptorHash: dHash,
    grade: "send",
    argsHash: argsHash(args),
    argsPreview: JSON.stringify(args),
    args,
    title: "Message a customer",
    expiresAt: "2030-01-01T00:15:00.000Z",
    approvers: { human: true, requesterMayConfirm: false },
    reason: "send needs a human",
    ruleIds: ["default.send.plan"],
    policyVersion: "p1",
  },
};

function grant(overrides: Partial<ApprovalGranted["data"]> = {}, signWith = privateKey): ApprovalGranted {
  const data: ApprovalGranted["data"] = {
    approvalId: "ap1",
    approver: "alice",
    argsHash: argsHash(args),
    descriptorHash: dHash,
    version: "1.0.0",
    grantedAt: now.toISOString(),
    expiresAt: "2030-01-01T00:05:00.000Z",
    nonce: "n1",
    keyId: "k1",
    signature: "",
  };
  const unsigned = { ...data, ...overrides };
  const signature = overrides.signature ?? sign(null, grantSigningPayload(grantStatementOf("call1", unsigned)), signWith).toString("base64");
  return { ...envelope, type: "ApprovalGranted", eventId: "gr1", causationId: "req1", causeHash: eventHash(request), data: { ...unsigned, signature } };
}

const facts = (g: ApprovalGranted, over: Partial<Parameters<typeof checkGrant>[0]> = {}) => ({
  grant: g,
  request,
  publicKey: keyB64,
  pinnedKeys: 1,
  now,
  verify: verifyGrantSignature,
  ...over,
});

function reason(r: ReturnType<typeof checkGrant>): string {
  expect(r.ok).toBe(false);
  if (r.ok) return "";
  expect(r.error.code).toBe("GRANT_INVALID");
  return r.error.message;
}

describe("checkGrant", () => {
  it("accepts a signed, unexpired grant bound to the request's args and descriptor", () => {
    expect(checkGrant(facts(grant()))).toEqual({ ok: true, value: request });
  });

  describe("a grant of edited args", () => {
    const edited = { customerId: "c1", text: "hello, and sorry for the wait" };
    const editedGrant = (over: Partial<ApprovalGranted["data"]> = {}) =>
      grant({ argsHash: argsHash(edited), edit: { args: edited, originalArgsHash: argsHash(args) }, ...over });

    it("is accepted when it names the requested args it replaces and binds the hash of the edited ones", () => {
      expect(checkGrant(facts(editedGrant()))).toEqual({ ok: true, value: request });
    });

    it("is refused when its edited args do not hash to what it signed", () => {
      const g = editedGrant();
      const swapped = { ...g, data: { ...g.data, edit: { args: { customerId: "c2", text: "other" }, originalArgsHash: argsHash(args) } } };
      expect(reason(checkGrant(facts(swapped)))).toMatch(/edited args do not hash/);
    });

    it("is refused when it replaces other args than the request's", () => {
      const g = editedGrant({ edit: { args: edited, originalArgsHash: `sha256:${"0".repeat(64)}` } });
      expect(reason(checkGrant(facts(g)))).toMatch(/replaces other args/);
    });

    it("is refused when the edit was added after signing (the original args hash is signed with it)", () => {
      const plain = grant({ argsHash: argsHash(edited) });
      const added = { ...plain, data: { ...plain.data, edit: { args: edited, originalArgsHash: argsHash(args) } } };
      expect(reason(checkGrant(facts(added)))).toMatch(/signature/);
    });
  });

  it("refuses a grant signed with another key", () => {
    expect(reason(checkGrant(facts(grant(), { publicKey: other })))).toMatch(/signature/);
  });

  it("refuses a grant whose fields were changed after signing", () => {
    const g = grant();
    const tampered = { ...g, data: { ...g.data, approver: "mallory" } };
    expect(reason(checkGrant(facts(tampered)))).toMatch(/signature/);
  });

  it("refuses a grant copied onto another call", () => {
    expect(reason(checkGrant(facts({ ...grant(), callId: "call2" })))).toMatch(/signature/);
  });

  it("refuses an expired grant", () => {
    expect(reason(checkGrant(facts(grant(), { now: new Date("2030-01-01T00:05:00.000Z") })))).toMatch(/expired/);
  });

  it("refuses a grant for other args, another approval or another descriptor", () => {
    expect(reason(checkGrant(facts(grant({ argsHash: argsHash({ other: 1 }) }))))).toMatch(/argsHash/);
    expect(reason(checkGrant(facts(grant({ approvalId: "ap2" }))))).toMatch(/approval/);
    expect(reason(checkGrant(facts(grant({ descriptorHash: `sha256:${"e".repeat(64)}` }))))).toMatch(/descriptor/);
  });

  it("refuses a request whose args were changed under their hash", () => {
    const forged = { ...request, data: { ...request.data, args: { customerId: "c1", text: "pay me" } } };
    expect(reason(checkGrant(facts(grant(), { request: forged })))).toMatch(/hash/);
  });

  it("refuses when the request is missing or the key is not pinned", () => {
    expect(reason(checkGrant(facts(grant(), { request: undefined })))).toMatch(/ApprovalRequested/);
    expect(reason(checkGrant(facts(grant(), { publicKey: undefined })))).toMatch(/no approver key "k1" is pinned/);
  });

  it("refuses every grant when no approver key is pinned at all", () => {
    expect(reason(checkGrant(facts(grant(), { publicKey: undefined, pinnedKeys: 0 })))).toMatch(/no approver key is pinned in this executor/);
  });
});

describe("checkApprovalOpen", () => {
  const answer = { ...envelope, eventId: "x", causationId: "req1", causeHash: eventHash(request) };
  it("lets a grant be used while the approval has no denial or expiry on the stream", () => {
    expect(checkApprovalOpen({ denied: undefined, expired: undefined })).toEqual({ ok: true, value: undefined });
  });

  it("refuses with APPROVAL_DENIED or APPROVAL_EXPIRED, saying who and when", () => {
    const denied = { ...answer, type: "ApprovalDenied" as const, data: { approvalId: "ap1", approver: "carol", reason: "no" } };
    const expired = { ...answer, type: "ApprovalExpired" as const, data: { approvalId: "ap1", expiresAt: "2029-12-31T23:59:00.000Z" } };
    expect(checkApprovalOpen({ denied, expired: undefined })).toMatchObject({
      ok: false,
      error: { code: "APPROVAL_DENIED", message: `the call's approval was already denied by carol at ${now.toISOString()}; its grant is not used` },
    });
    expect(checkApprovalOpen({ denied: undefined, expired })).toMatchObject({ ok: false, error: { code: "APPROVAL_EXPIRED" } });
  });
});
