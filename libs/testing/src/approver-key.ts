import { generateKeyPairSync, type KeyObject } from "node:crypto";
import { approverKeyId } from "@warden/contracts/approval";

export interface ApproverKey {
  readonly keyId: string;
  readonly privateKey: KeyObject;
  /** SPKI DER, base64: what an executor pins (`approverKeys`). */
  readonly publicKeyDerBase64: string;
}

/** A fresh approver key pair, as provisioning mints one: pin `publicKeyDerBase64` in the executor. */
export function approverKey(): ApproverKey {
  const { publicKey, privateKey } = generateKeyPairSync("ed25519");
  const der = publicKey.export({ type: "spki", format: "der" });
  return { keyId: approverKeyId(der), privateKey, publicKeyDerBase64: der.toString("base64") };
}

/** A key that is not pinned, naming itself `keyId`: what a forger would sign with. */
export function unpinnedKey(keyId: string): ApproverKey {
  const other = approverKey();
  return { ...other, keyId };
}
