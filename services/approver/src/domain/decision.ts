import {
  grantSigningPayload,
  type ApprovalGranted,
  type ApprovalRequested,
  type DECISION_REFUSALS,
  type DecisionRequest,
  type PolicyDocument,
} from "@warden/contracts";
import { mayDecide } from "@warden/policy-engine";
import { isOverdue, type ApprovalRecord, type DecisionMade } from "./approval-record.js";
import { judgeStreamOutcome, type StreamOutcome } from "./settled-on-stream.js";

export type Refusal = (typeof DECISION_REFUSALS)[number];
export type Judgement = { readonly ok: true } | { readonly ok: false; readonly refusal: Refusal; readonly message: string };

/** A grant must be used soon, whatever the approval's own expiry. */
export const GRANT_LIFETIME_MS = 10 * 60_000;

export interface DecisionFacts {
  /** The inbox record under the approvalId of the subject. */
  readonly record: ApprovalRecord | undefined;
  /** The call's ApprovalRequested: the immutable facts the decision is judged on. */
  readonly requested: ApprovalRequested | undefined;
  /** The call's terminal approval events already on the stream: they overrule the record. */
  readonly outcome: StreamOutcome;
  /** From the subject the server let through, never from the body. */
  readonly approver: string;
  readonly request: DecisionRequest;
  readonly doc: PolicyDocument;
  readonly now: Date;
}

function refuse(refusal: Refusal, message: string): Judgement {
  return { ok: false, refusal, message };
}

/** Whether a decision may be taken, and if not, why. Authority is checked before anything is revealed. */
export function judgeDecision(f: DecisionFacts): Judgement {
  const { record, requested } = f;
  // the record is written before the event; only an approval that reached the stream can be decided
  if (record === undefined || requested === undefined || requested.data.approvalId !== record.approvalId) {
    return refuse("UNKNOWN_APPROVAL", "no such approval");
  }
  const who = mayDecide(f.doc, f.approver, {
    grade: requested.data.grade,
    mode: requested.mode,
    requester: requested.principal,
    requesterMayConfirm: requested.data.approvers.requesterMayConfirm,
  });
  if (!who.ok) return refuse("NOT_AUTHORISED", who.reason);
  // the lock record is a KV value someone could rewrite; what the stream holds is settled for good
  const onStream = judgeStreamOutcome(f.outcome);
  if (!onStream.ok) return onStream;
  if (record.status === "expired") return refuse("EXPIRED", `the approval expired at ${record.expiresAt}`);
  if (record.status !== "pending") return refuse("ALREADY_DECIDED", `the approval was already ${record.status}`);
  if (isOverdue(record, f.now)) return refuse("EXPIRED", `the approval expired at ${record.expiresAt}`);
  if (f.request.argsHash !== requested.data.argsHash) {
    return refuse("ARGS_HASH_MISMATCH", "the argsHash decided on is not the one of the requested args; look at the approval again");
  }
  return { ok: true };
}

export function grantExpiry(approvalExpiresAt: string, now: Date): string {
  return new Date(Math.min(Date.parse(approvalExpiresAt), now.getTime() + GRANT_LIFETIME_MS)).toISOString();
}

export interface Signer {
  readonly keyId: string;
  sign(payload: Uint8Array): string;
}

/** The signed grant for an approval: bound to its args, descriptor and version, single nonce, short-lived. */
export function signGrant(requested: ApprovalRequested, approver: string, now: Date, nonce: string, signer: Signer): ApprovalGranted["data"] {
  const r = requested.data;
  const statement = {
    callId: requested.callId,
    approvalId: r.approvalId,
    argsHash: r.argsHash,
    descriptorHash: r.descriptorHash,
    version: r.version,
    approver,
    expiresAt: grantExpiry(r.expiresAt, now),
    nonce,
  };
  return {
    approvalId: statement.approvalId,
    approver,
    argsHash: statement.argsHash,
    descriptorHash: statement.descriptorHash,
    version: statement.version,
    grantedAt: now.toISOString(),
    expiresAt: statement.expiresAt,
    nonce,
    signature: signer.sign(grantSigningPayload(statement)),
    keyId: signer.keyId,
  };
}

/** What the inbox record becomes once a decision is taken. */
export function decidedRecord(record: ApprovalRecord, made: DecisionMade): ApprovalRecord {
  return { ...record, status: made.decision === "grant" ? "granted" : "denied", decision: made };
}

export function expiredRecord(record: ApprovalRecord, now: Date): ApprovalRecord {
  return { ...record, status: "expired", expiredAt: now.toISOString() };
}

export function denialReason(approver: string, reason: string | undefined): string {
  const r = reason?.trim();
  return r ? r : `denied by ${approver}`;
}
