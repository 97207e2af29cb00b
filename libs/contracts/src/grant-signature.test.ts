import { generateKeyPairSync, sign } from "node:crypto";
import { describe, expect, it } from "vitest";
import { grantSigningPayload, type GrantStatement } from "./approval.js";
import { approverKeyId, grantStatementOf, verifyGrantSignature } from "./grant-signature.js";

const statement: GrantStatement = {
  callId: "call1",
  approvalId: "appr1",
  argsHash: `sha256:${"a".repeat(64)}`,
  descriptorHash: `sha256:${"b".repeat(64)}`,
  version: "1.0.0",
  approver: "alice",
  expiresAt: "2030-01-01T00:00:00.000Z",
  nonce: "n1",
};

function keys() {
  const { publicKey, privateKey } = generateKeyPairSync("ed25519");
  const der = publicKey.export({ type: "spki", format: "der" });
  return { privateKey, der, b64: der.toString("base64") };
}

describe("verifyGrantSignature", () => {
  it("accepts a signature made over the statement by the matching key", () => {
    const k = keys();
    const sig = sign(null, grantSigningPayload(statement), k.privateKey).toString("base64");
    expect(verifyGrantSignature(k.b64, statement, sig)).toBe(true);
  });

  it("refuses a statement changed in any field", () => {
    const k = keys();
    const sig = sign(null, grantSigningPayload(statement), k.privateKey).toString("base64");
    for (const field of Object.keys(statement) as (keyof GrantStatement)[]) {
      const changed = { ...statement, [field]: field === "argsHash" ? `sha256:${"c".repeat(64)}` : `${statement[field]}x` };
      expect(verifyGrantSignature(k.b64, changed, sig)).toBe(false);
    }
  });

  it("refuses another key's signature, and garbage keys or signatures without throwing", () => {
    const a = keys();
    const b = keys();
    const sig = sign(null, grantSigningPayload(statement), a.privateKey).toString("base64");
    expect(verifyGrantSignature(b.b64, statement, sig)).toBe(false);
    expect(verifyGrantSignature("not-a-key", statement, sig)).toBe(false);
    expect(verifyGrantSignature(a.b64, statement, "AAAA")).toBe(false);
  });

  it("names a key by the first 16 hex characters of its DER's sha256, and rebuilds a statement from event data", () => {
    const k = keys();
    expect(approverKeyId(k.der)).toMatch(/^[0-9a-f]{16}$/);
    const { callId, ...data } = statement;
    expect(grantStatementOf(callId, { ...data, ...{ extra: 1 } } as Parameters<typeof grantStatementOf>[1])).toEqual(statement);
  });

  it("signs an edit's original args hash and a quorum's other approvers, and only when they are there", () => {
    const { callId, originalArgsHash, coApprovers, session, bySession, ...data } = statement;
    expect([originalArgsHash, coApprovers, session, bySession]).toEqual([undefined, undefined, undefined, undefined]);
    const plain = grantSigningPayload(grantStatementOf(callId, data));
    const edited = grantStatementOf(callId, { ...data, edit: { originalArgsHash: "sha256:orig" } });
    const quorum = grantStatementOf(callId, { ...data, coApprovers: [{ approver: "bob" }] });
    expect(edited.originalArgsHash).toBe("sha256:orig");
    expect(quorum.coApprovers).toEqual(["bob"]);
    expect(grantSigningPayload(edited).toString()).toContain('"originalArgsHash":"sha256:orig"');
    expect(grantSigningPayload(quorum).toString()).toContain('"coApprovers":["bob"]');
    expect(plain.toString()).not.toMatch(/originalArgsHash|coApprovers/);
  });

  it("signs an L5 grant's preview hash, so a grant cannot be moved to another dry run", () => {
    const k = keys();
    const { callId, originalArgsHash: _o, coApprovers: _c, session: _s, bySession: _b, previewHash: _p, ...data } = statement;
    const bound = grantStatementOf(callId, { ...data, previewHash: `sha256:${"e".repeat(64)}` });
    expect(grantSigningPayload(bound).toString()).toContain(`"previewHash":"sha256:${"e".repeat(64)}"`);
    const sig = sign(null, grantSigningPayload(bound), k.privateKey).toString("base64");
    expect(verifyGrantSignature(k.b64, bound, sig)).toBe(true);
    expect(verifyGrantSignature(k.b64, { ...bound, previewHash: `sha256:${"f".repeat(64)}` }, sig)).toBe(false);
    expect(verifyGrantSignature(k.b64, grantStatementOf(callId, data), sig)).toBe(false);
  });
});
