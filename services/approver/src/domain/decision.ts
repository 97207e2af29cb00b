import { type ApprovalGranted, type ApprovalRequested } from "@warden/contracts/events";
import { type PolicyDocument, type BySession, type SessionTerms } from "@warden/contracts/policy";
import { grantSigningPayload, type DECISION_REFUSALS, type DecisionReply, type DecisionRequest } from "@warden/contracts/approval";
import { type JsonValue } from "@warden/contracts/json";
import { mayDecide } from "@warden/policy-engine";
import { isOverdue, type ApprovalRecord, type DecisionMade } from "./approval-record.js";
import { judgeStreamOutcome, type StreamOutcome } from "./settled-on-stream.js";

export type Refusal = (typeof DECISION_REFUSALS)[number];
type Decided = NonNullable<Extract<DecisionReply, { ok: false }>["decided"]>;
export type Judgement =
  | { readonly ok: true }
  | { readonly ok: false; readonly refusal: Refusal; readonly message: string; readonly decided?: Decided };

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

function refuse(refusal: Refusal, message: string, decided?: Decided): Judgement {
  return decided === undefined ? { ok: false, refusal, message } : { ok: false, refusal, message, decided };
}

/** "already granted by alice at T": what a late or second decision is told, from the lock record. */
export function alreadyDecided(record: ApprovalRecord): Judgement {
  const d = record.decision;
  if (record.status === "expired") {
    return refuse("EXPIRED", `the approval expired at ${record.expiresAt}`, { decision: "expire", at: record.expiredAt ?? record.expiresAt });
  }
  if (d === undefined) return refuse("ALREADY_DECIDED", `the approval was already ${record.status}`);
  const verb = d.decision === "grant" ? "granted" : "denied";
  return refuse("ALREADY_DECIDED", `the approval was already ${verb} by ${d.approver} at ${d.decidedAt}`, { decision: d.decision, by: d.approver, at: d.decidedAt });
}

/** Whether a decision may be taken, and if not, why. Authority is checked before anything is revealed. */
export function judgeDecision(f: DecisionFacts): Judgement {
  const { record, requested } = f;
  // the record is written before the event; only an approval that reached the stream can be decided
  if (record === undefined || requested === undefined || requested.data.approvalId !== record.approvalId) {
    return refuse("UNKNOWN_APPROVAL", "no such approval");
  }
  const quorum = record.quorum ?? 1;
  const who = mayDecide(f.doc, f.approver, {
    grade: requested.data.grade,
    mode: requested.mode,
    requester: requested.principal,
    // a requester's own confirmation is one person agreeing with themself: it never makes a quorum
    requesterMayConfirm: requested.data.approvers.requesterMayConfirm && quorum === 1,
    chain: (requested.data.chain ?? []).map((l) => l.principal),
  });
  if (!who.ok) return refuse("NOT_AUTHORISED", who.reason);
  // the lock record is a KV value someone could rewrite; what the stream holds is settled for good
  const onStream = judgeStreamOutcome(f.outcome);
  if (!onStream.ok) return onStream;
  if (record.status !== "pending") return alreadyDecided(record);
  if (isOverdue(record, f.now)) return refuse("EXPIRED", `the approval expired at ${record.expiresAt}`, { decision: "expire", at: record.expiresAt });
  if (f.request.argsHash !== requested.data.argsHash) {
    return refuse("ARGS_HASH_MISMATCH", "the argsHash decided on is not the one of the requested args; look at the approval again");
  }
  if (f.request.args !== undefined && f.request.decision !== "grant") return refuse("MALFORMED", "only a grant may carry edited args");
  const mine = record.votes?.find((v) => v.approver === f.approver);
  if (mine !== undefined) {
    return refuse("ALREADY_DECIDED", `you already granted this at ${mine.at}; it needs ${quorum - (record.votes?.length ?? 0)} more distinct approver(s)`, {
      decision: "grant",
      by: mine.approver,
      at: mine.at,
    });
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

/** What a grant binds beyond the request: edited args, and the earlier grants of a quorum. */
export interface GrantExtras {
  readonly edit?: { readonly args: JsonValue; readonly argsHash: string };
  readonly coApprovers?: readonly { readonly approver: string; readonly at: string }[];
  /** The grant also grants for the session, on these terms. */
  readonly session?: SessionTerms;
  /** The grant is given by a session grant. */
  readonly bySession?: BySession;
  /** The hash of the dry run on the card, bound by an L5 call's grant. */
  readonly previewHash?: string;
}

/** The signed grant for an approval: bound to its args (or the edited ones), descriptor and version, single nonce, short-lived. */
export function signGrant(
  requested: ApprovalRequested,
  approver: string,
  now: Date,
  nonce: string,
  signer: Signer,
  extras: GrantExtras = {},
): ApprovalGranted["data"] {
  const r = requested.data;
  const co = extras.coApprovers === undefined || extras.coApprovers.length === 0 ? undefined : extras.coApprovers.map((c) => ({ approver: c.approver, at: c.at }));
  const statement = {
    callId: requested.callId,
    approvalId: r.approvalId,
    argsHash: extras.edit?.argsHash ?? r.argsHash,
    descriptorHash: r.descriptorHash,
    version: r.version,
    approver,
    expiresAt: grantExpiry(r.expiresAt, now),
    nonce,
    ...(extras.edit === undefined ? {} : { originalArgsHash: r.argsHash }),
    ...(co === undefined ? {} : { coApprovers: co.map((c) => c.approver) }),
    ...(extras.session === undefined ? {} : { session: extras.session }),
    ...(extras.bySession === undefined ? {} : { bySession: extras.bySession.grantId }),
    ...(extras.previewHash === undefined ? {} : { previewHash: extras.previewHash }),
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
    ...(extras.edit === undefined ? {} : { edit: { args: extras.edit.args, originalArgsHash: r.argsHash } }),
    ...(co === undefined ? {} : { coApprovers: co }),
    ...(extras.session === undefined ? {} : { session: extras.session }),
    ...(extras.bySession === undefined ? {} : { bySession: extras.bySession }),
    ...(extras.previewHash === undefined ? {} : { previewHash: extras.previewHash }),
  };
}

/**
 * The preview hash an L5 call's grant binds: the dry run its card showed (none when the tool has
 * no preview, or the dry run failed: then the quorum is the only second check).
 */
export function boundPreviewHash(requested: ApprovalRequested): string | undefined {
  return requested.data.level === "L5" ? requested.data.preview?.hash : undefined;
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
