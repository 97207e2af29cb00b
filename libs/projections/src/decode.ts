import {
  EVENT_FAILURES,
  MAX_EVENT_BYTES,
  MAX_REQUEST_BYTES,
  MAX_REQUEST_DEPTH,
  parseCallSubject,
  parseJsonGuarded,
  subjectOfEvent,
  validateEventJson,
  type WardenEvent,
} from "@warden/contracts";

/** Why a stream message is not an event; the stages' codes (every one of them final: the bytes never change). */
export const DECODE_FAILURES = ["NOT_A_CALL_SUBJECT", ...EVENT_FAILURES] as const;
export type DecodeFailure = (typeof DECODE_FAILURES)[number];

export type DecodedEvent =
  | { readonly ok: true; readonly event: WardenEvent }
  | { readonly ok: false; readonly code: DecodeFailure; readonly reason: string; readonly retryable: false };

const fail = (code: DecodeFailure, reason: string): DecodedEvent => ({ ok: false, code, reason, retryable: false });

/**
 * A stream message as an event: within size and depth limits, UTF-8, JSON, a valid event, and
 * the event its subject names. Anything else is a value, never an exception, whatever the bytes:
 * every reader of the stream (projector, replay, trace, audit) decodes with this, so all of them
 * leave out exactly the same messages.
 */
export function decodeCallMessage(subject: string, data: Uint8Array): DecodedEvent {
  const parsedSubject = parseCallSubject(subject);
  if (parsedSubject === undefined) return fail("NOT_A_CALL_SUBJECT", `not a call subject: ${subject}`);
  // a request is held to the registry's limits: one the registry refused as unreadable must be
  // unreadable here too, or the models would fold the body's claims (its run, its mode) beside
  // the registry's refusal, which names only what the subject says
  const limits = parsedSubject.types.includes("ToolCallRequested") ? { maxBytes: MAX_REQUEST_BYTES, maxDepth: MAX_REQUEST_DEPTH } : { maxBytes: MAX_EVENT_BYTES };
  const json = parseJsonGuarded(data, limits);
  if (!json.ok) return fail(json.code, json.reason);
  const parsed = validateEventJson(json.value);
  if (!parsed.ok) return fail(parsed.code, parsed.code === "SCHEMA_INVALID" ? `schema-invalid event: ${parsed.reason}` : parsed.reason);
  const e = parsed.value;
  if (subjectOfEvent(e) !== subject) return fail("SUBJECT_MISMATCH", `event does not match its subject ${subject}`);
  return { ok: true, event: e };
}

/** One line for a log or a dead letter: the code first, so it can be counted. */
export function decodeFailureText(d: Extract<DecodedEvent, { ok: false }>): string {
  return `${d.code}: ${d.reason}`;
}
