import { generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { approverKeyId, grantSigningPayload, verifyGrantSignature, type GrantStatement } from "@warden/contracts/approval";
import { generateSigningKeyPair, loadSigningKey, publicKeyOf } from "./signing-key.js";

const statement: GrantStatement = {
  callId: "c1",
  approvalId: "a1",
  argsHash: `sha256:${"a".repeat(64)}`,
  descriptorHash: `sha256:${"b".repeat(64)}`,
  version: "1.0.0",
  approver: "alice",
  expiresAt: "2030-01-01T00:00:00.000Z",
  nonce: "n1",
};

describe("loadSigningKey", () => {
  it("loads a PEM Ed25519 key with a stable key id, and its signatures verify with the public half", () => {
    const pem = generateKeyPairSync("ed25519").privateKey.export({ type: "pkcs8", format: "pem" }).toString();
    const a = loadSigningKey(pem);
    const b = loadSigningKey(pem);
    expect(a.keyId).toMatch(/^[0-9a-f]{16}$/);
    expect(b.keyId).toBe(a.keyId);
    expect(verifyGrantSignature(a.publicKeyDerBase64, statement, a.sign(grantSigningPayload(statement)))).toBe(true);
  });

  it("makes a fresh key when none is given", () => {
    expect(loadSigningKey().keyId).not.toBe(loadSigningKey().keyId);
  });

  it("refuses a key that is not Ed25519", () => {
    const rsa = generateKeyPairSync("rsa", { modulusLength: 1024 }).privateKey.export({ type: "pkcs8", format: "pem" }).toString();
    expect(() => loadSigningKey(rsa)).toThrow(/must be Ed25519/);
  });
});

describe("generateSigningKeyPair", () => {
  it("mints a PEM private key and the public half verifiers pin, with its key id", () => {
    const pair = generateSigningKeyPair();
    expect(pair.privateKeyPem).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    expect(pair.keyId).toBe(approverKeyId(Buffer.from(pair.publicKeyDerBase64, "base64")));
    const signer = loadSigningKey(pair.privateKeyPem);
    expect(signer.keyId).toBe(pair.keyId);
    expect(verifyGrantSignature(pair.publicKeyDerBase64, statement, signer.sign(grantSigningPayload(statement)))).toBe(true);
    expect(publicKeyOf(pair.privateKeyPem)).toEqual({ keyId: pair.keyId, publicKeyDerBase64: pair.publicKeyDerBase64 });
    expect(generateSigningKeyPair().keyId).not.toBe(pair.keyId);
  });
});
