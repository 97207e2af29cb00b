import { type WardenEvent } from "@warden/contracts/events";
import { parseCallSubject } from "@warden/contracts/subjects";
import { grantStatementOf, verifyGrantSignature } from "@warden/contracts/approval";
import type { PinnedKeys } from "./checkpoint.js";
import type { EvidenceFinding } from "./findings.js";
import { writerProblem } from "./writer-roles.js";

/** A readable event of the stream with what the checks need of its stored form. */
export interface StoredEvent {
  readonly seq: number;
  readonly subject: string;
  readonly event: WardenEvent;
  /** The hash an answering event names as its causeHash: `messageHash` of the stored bytes. */
  readonly hash: string;
  /** The hash an event written before canonical JSON became RFC 8785 named it by, where that differs (legacy-hash.ts). */
  readonly legacyHash?: string;
}

/** A stored message that is not an event (a caller's unreadable request): what a refusal of it answers. */
export interface UnreadableMessage {
  readonly subject: string;
  readonly hash: string;
}

/**
 * Each event against the event it answers: that event must be in the call and be, byte for
 * meaning, the one this event was written against. `complete` says the events hold every call's
 * whole history (the stream, a full export); otherwise a cause outside them is not a finding.
 * `agedOut` says retention removed the stream's oldest messages: a call whose request went with
 * them may have lost its other early events too, so its missing causes are not findings (a call
 * whose request is still there lost nothing, since every event of a call comes after its request).
 */
export function chainFindings(
  events: readonly StoredEvent[],
  unreadable: readonly UnreadableMessage[],
  complete: boolean,
  agedOut = false,
): EvidenceFinding[] {
  const byId = new Map<string, StoredEvent>();
  const requested = new Set<string>();
  for (const e of events) {
    byId.set(`${e.event.callId}/${e.event.eventId}`, e);
    if (e.event.type === "ToolCallRequested") requested.add(e.event.callId);
  }
  // the registry's refusal of a request it could not read answers the request's bytes
  const unreadableOf = new Set<string>();
  for (const u of unreadable) {
    const callId = parseCallSubject(u.subject)?.callId;
    if (callId === undefined) continue;
    unreadableOf.add(`${callId}/${u.hash}`);
    requested.add(callId);
  }
  const out: EvidenceFinding[] = [];
  for (const e of events) {
    const { event } = e;
    const at = { seq: e.seq, callId: event.callId, type: event.type, eventId: event.eventId };
    if (event.type === "ToolCallRequested") {
      if (event.causationId !== null || event.causeHash !== null) out.push({ ...at, kind: "chain_unlinked", detail: "a request answers nothing, yet this one names a cause" });
      continue;
    }
    if (event.causeHash === null) {
      out.push({ ...at, kind: "chain_unlinked", detail: `a ${event.type} that names no causeHash` });
      continue;
    }
    if (unreadableOf.has(`${event.callId}/${event.causeHash}`)) continue;
    const cause = event.causationId === null ? undefined : byId.get(`${event.callId}/${event.causationId}`);
    if (cause === undefined) {
      if (complete && !(agedOut && !requested.has(event.callId))) out.push({ ...at, kind: "chain_cause_missing", detail: `the event it answers (${event.causationId ?? "an unreadable message"}) is not in the call's history` });
      continue;
    }
    if (cause.hash !== event.causeHash && cause.legacyHash !== event.causeHash) {
      out.push({
        ...at,
        kind: "chain_hash_mismatch",
        detail: `the ${cause.event.type} it answers (seq ${cause.seq}) is not the one it was written against: one of the two was changed`,
      });
    }
  }
  return out;
}

/** Each event against the roles the permission matrix lets write its subject. */
export function writerFindings(events: readonly StoredEvent[]): EvidenceFinding[] {
  const out: EvidenceFinding[] = [];
  for (const e of events) {
    const problem = writerProblem(e.subject, e.event);
    if (problem !== undefined) out.push({ seq: e.seq, callId: e.event.callId, type: e.event.type, eventId: e.event.eventId, kind: "writer_not_allowed", detail: problem });
  }
  return out;
}

/** Each grant against the approver keys pinned at provisioning, never a key found beside it. */
export function grantFindings(events: readonly StoredEvent[], approverKeys: PinnedKeys): EvidenceFinding[] {
  const out: EvidenceFinding[] = [];
  for (const e of events) {
    if (e.event.type !== "ApprovalGranted") continue;
    const g = e.event.data;
    const at = { seq: e.seq, callId: e.event.callId, type: e.event.type, eventId: e.event.eventId };
    const key = approverKeys.get(g.keyId);
    if (key === undefined) {
      out.push({ ...at, kind: "grant_key_unknown", detail: `signed with key ${g.keyId}, which is not a pinned approver key` });
    } else if (!verifyGrantSignature(key, grantStatementOf(e.event.callId, g), g.signature)) {
      out.push({ ...at, kind: "grant_signature_invalid", detail: `the signature of ${g.approver}'s grant does not verify with pinned key ${g.keyId}` });
    }
  }
  return out;
}
