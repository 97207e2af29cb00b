import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, type KeyObject } from "node:crypto";
import { approverKeyId } from "@warden/contracts/approval";

/**
 * An Ed25519 key a service signs with: the approver's grants, the notary's checkpoints. The
 * private half stays with the service; the public half is pinned at provisioning by whoever
 * verifies (executors, auditors), never read from the bus.
 */
export interface SigningKey {
  readonly keyId: string;
  /** SPKI DER, base64: what verifiers pin. */
  readonly publicKeyDerBase64: string;
  /** Signs bytes; the signature is base64. */
  sign(payload: Uint8Array): string;
}

/** A key pair minted at provisioning: the service keeps the private half, verifiers pin the public half. */
export interface SigningKeyPair {
  /** PKCS#8 PEM: the service's key file. */
  readonly privateKeyPem: string;
  /** SPKI DER, base64: the pinned public key. */
  readonly publicKeyDerBase64: string;
  /** The id signatures name the key by. */
  readonly keyId: string;
}

/** Mints a fresh Ed25519 key pair (for `warden up` and test harnesses). */
export function generateSigningKeyPair(): SigningKeyPair {
  const { privateKey } = generateKeyPairSync("ed25519");
  const privateKeyPem = privateKey.export({ type: "pkcs8", format: "pem" }).toString();
  const { keyId, publicKeyDerBase64 } = loadSigningKey(privateKeyPem);
  return { privateKeyPem, publicKeyDerBase64, keyId };
}

/** The public half (SPKI DER base64) and key id of a PEM private key: what to pin for an existing key. */
export function publicKeyOf(privateKeyPem: string): { readonly publicKeyDerBase64: string; readonly keyId: string } {
  const { keyId, publicKeyDerBase64 } = loadSigningKey(privateKeyPem);
  return { keyId, publicKeyDerBase64 };
}

/** From a PEM private key, or a fresh key pair when none is given. Throws on a key that is not Ed25519. */
export function loadSigningKey(pem?: string): SigningKey {
  const privateKey: KeyObject = pem === undefined ? generateKeyPairSync("ed25519").privateKey : createPrivateKey(pem);
  if (privateKey.asymmetricKeyType !== "ed25519") {
    throw new Error(`a signing key must be Ed25519, not ${privateKey.asymmetricKeyType ?? "unknown"}`);
  }
  const der = createPublicKey(privateKey).export({ type: "spki", format: "der" });
  return {
    keyId: approverKeyId(der),
    publicKeyDerBase64: der.toString("base64"),
    sign: (payload) => sign(null, payload, privateKey).toString("base64"),
  };
}
