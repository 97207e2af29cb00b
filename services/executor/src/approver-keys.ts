import { createPublicKey } from "node:crypto";
import { approverKeyId } from "@warden/contracts/approval";

/**
 * The approver public keys this executor was provisioned with, by key id. Grants are verified
 * against these only: never against a key found in a bucket, which a client could write.
 */
export interface PinnedApproverKeys {
  readonly size: number;
  readonly keyIds: readonly string[];
  /** The SPKI DER (base64) of a pinned key; undefined when the id is not pinned. */
  get(keyId: string): string | undefined;
}

/** A pinned key that is not an Ed25519 public key in SPKI DER, base64. */
export class ApproverKeyError extends Error {
  override readonly name = "ApproverKeyError";
}

/**
 * Pins base64 SPKI DER Ed25519 public keys (as `SigningKey.publicKeyDerBase64`), each under the
 * id grants name it by (approverKeyId). Throws ApproverKeyError on a key that is not one.
 */
export function pinApproverKeys(keys: readonly string[]): PinnedApproverKeys {
  const byId = new Map<string, string>();
  keys.forEach((raw, i) => {
    const b64 = raw.trim();
    const der = parseEd25519Spki(b64, i);
    byId.set(approverKeyId(der), der.toString("base64"));
  });
  return { size: byId.size, keyIds: [...byId.keys()], get: (keyId) => byId.get(keyId) };
}

function parseEd25519Spki(b64: string, index: number): Buffer {
  const what = `approver key #${index + 1}`;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64)) throw new ApproverKeyError(`${what} is not base64 (an Ed25519 public key, SPKI DER)`);
  const der = Buffer.from(b64, "base64");
  let type: string | undefined;
  try {
    type = createPublicKey({ key: der, format: "der", type: "spki" }).asymmetricKeyType;
  } catch (err) {
    throw new ApproverKeyError(`${what} is not an SPKI DER public key: ${(err as Error).message}`);
  }
  if (type !== "ed25519") throw new ApproverKeyError(`${what} must be Ed25519, not ${type ?? "unknown"}`);
  return der;
}
