import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, type KeyObject } from "node:crypto";
import { kvPutJson, type Bus } from "@warden/bus";
import { approverKeyId, approverKeyKey, BUCKET_POLICY } from "@warden/contracts";

/** The approver's Ed25519 key: grants are signed with it, executors verify with the public half. */
export interface SigningKey {
  readonly keyId: string;
  /** SPKI DER, base64: what `approver-key.<keyId>` holds. */
  readonly publicKeyDerBase64: string;
  /** Signs bytes; the signature is base64. */
  sign(payload: Uint8Array): string;
}

/** From a PEM private key, or a fresh key pair when none is given. Throws on a key that is not Ed25519. */
export function loadSigningKey(pem?: string): SigningKey {
  const privateKey: KeyObject = pem === undefined ? generateKeyPairSync("ed25519").privateKey : createPrivateKey(pem);
  if (privateKey.asymmetricKeyType !== "ed25519") {
    throw new Error(`the approver signing key must be Ed25519, not ${privateKey.asymmetricKeyType ?? "unknown"}`);
  }
  const der = createPublicKey(privateKey).export({ type: "spki", format: "der" });
  return {
    keyId: approverKeyId(der),
    publicKeyDerBase64: der.toString("base64"),
    sign: (payload) => sign(null, payload, privateKey).toString("base64"),
  };
}

/** Publishes the public key under `approver-key.<keyId>` in `warden_policy` (a JSON string). */
export async function publishSigningKey(bus: Bus, key: SigningKey): Promise<void> {
  const kv = await bus.kvm.open(BUCKET_POLICY);
  await kvPutJson(kv, approverKeyKey(key.keyId), key.publicKeyDerBase64);
}
