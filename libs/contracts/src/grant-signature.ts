import { createPublicKey, verify } from "node:crypto";
import { z } from "zod";
import { grantSigningPayload, type GrantStatement } from "./approval.js";
import { sha256Hex } from "./canonical-json.js";
import type { SessionTerms } from "./session-grant.js";

/**
 * An approver's Ed25519 public key, SPKI DER as base64: what an executor pins at provisioning
 * (`approverKeys`, WARDEN_APPROVER_PUBLIC_KEYS). Grants are never verified against a key read
 * from a bucket.
 */
export const ApproverPublicKeySchema = z.string().regex(/^[A-Za-z0-9+/]+={0,2}$/);

/** The id a grant names its key by: the first 16 hex characters of sha256 of the SPKI DER. */
export function approverKeyId(publicKeyDer: Uint8Array): string {
  return sha256Hex(publicKeyDer).slice(0, 16);
}

/** The statement an ApprovalGranted signs, from the call id and the event's data. */
export function grantStatementOf(
  callId: string,
  grant: Omit<GrantStatement, "callId" | "originalArgsHash" | "coApprovers" | "session" | "bySession" | "previewHash"> & {
    readonly previewHash?: string | undefined;
    readonly edit?: { readonly originalArgsHash: string } | undefined;
    readonly coApprovers?: readonly { readonly approver: string }[] | undefined;
    readonly session?: SessionTerms | undefined;
    readonly bySession?: { readonly grantId: string } | undefined;
  },
): GrantStatement {
  return {
    ...(grant.session === undefined ? {} : { session: grant.session }),
    ...(grant.bySession === undefined ? {} : { bySession: grant.bySession.grantId }),
    ...(grant.coApprovers === undefined ? {} : { coApprovers: grant.coApprovers.map((c) => c.approver) }),
    ...(grant.edit === undefined ? {} : { originalArgsHash: grant.edit.originalArgsHash }),
    ...(grant.previewHash === undefined ? {} : { previewHash: grant.previewHash }),
    callId,
    approvalId: grant.approvalId,
    argsHash: grant.argsHash,
    descriptorHash: grant.descriptorHash,
    version: grant.version,
    approver: grant.approver,
    expiresAt: grant.expiresAt,
    nonce: grant.nonce,
  };
}

/**
 * Checks an Ed25519 grant signature. Pure: the caller fetches the key (by the grant's keyId) and
 * checks binding and expiry itself. A malformed key or signature is simply not valid.
 */
export function verifyGrantSignature(publicKeyDerBase64: string, statement: GrantStatement, signatureBase64: string): boolean {
  return verifyEd25519(publicKeyDerBase64, grantSigningPayload(statement), signatureBase64);
}

/** An Ed25519 signature (base64) over `payload` by a public key (SPKI DER, base64); a malformed key or signature is simply not valid. */
export function verifyEd25519(publicKeyDerBase64: string, payload: Uint8Array, signatureBase64: string): boolean {
  try {
    const key = createPublicKey({ key: Buffer.from(publicKeyDerBase64, "base64"), format: "der", type: "spki" });
    if (key.asymmetricKeyType !== "ed25519") return false;
    return verify(null, payload, key, Buffer.from(signatureBase64, "base64"));
  } catch {
    return false;
  }
}
