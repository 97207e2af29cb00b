import { Buffer, isUtf8 } from "node:buffer";
import { compiledEventCheck, validateEventJsonWithZod, type WardenEvent } from "@warden/contracts/events";
import {
  MAX_EVENT_BYTES,
  MAX_JSON_DEPTH,
  MAX_REQUEST_BYTES,
  MAX_REQUEST_DEPTH,
  parseCallSubject,
  subjectOfEvent,
} from "@warden/contracts/subjects";
import { EVENT_FAILURES, parseJsonGuarded } from "@warden/contracts/json";

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
  const event = acceptedAsIs(subject, data);
  return event === undefined ? fullDecodeCallMessage(subject, data) : { ok: true, event };
}

/** The full decode, step by step, without the compiled check: what it refuses, it says why. The reference the fast path is tested against. */
export function fullDecodeCallMessage(subject: string, data: Uint8Array): DecodedEvent {
  const parsedSubject = parseCallSubject(subject);
  if (parsedSubject === undefined) return fail("NOT_A_CALL_SUBJECT", `not a call subject: ${subject}`);
  // a request is held to the registry's limits: one the registry refused as unreadable must be
  // unreadable here too, or the models would fold the body's claims (its run, its mode) beside
  // the registry's refusal, which names only what the subject says
  const limits = parsedSubject.types.includes("ToolCallRequested") ? { maxBytes: MAX_REQUEST_BYTES, maxDepth: MAX_REQUEST_DEPTH } : { maxBytes: MAX_EVENT_BYTES };
  const json = parseJsonGuarded(data, limits);
  if (!json.ok) return fail(json.code, json.reason);
  const parsed = validateEventJsonWithZod(json.value);
  if (!parsed.ok) return fail(parsed.code, parsed.code === "SCHEMA_INVALID" ? `schema-invalid event: ${parsed.reason}` : parsed.reason);
  const e = parsed.value;
  if (subjectOfEvent(e) !== subject) return fail("SUBJECT_MISMATCH", `event does not match its subject ${subject}`);
  return { ok: true, event: e };
}

/** One line for a log or a dead letter: the code first, so it can be counted. */
export function decodeFailureText(d: Extract<DecodedEvent, { ok: false }>): string {
  return `${d.code}: ${d.reason}`;
}

/**
 * The event, when the message is surely one the full decode accepts, as it would return it;
 * undefined when in any doubt (the full decode then says what is wrong, or accepts after all).
 * The same checks, cheaper: the schema compiled into one predicate that also refuses members zod
 * would strip (instead of zod building a copy to compare), depth counted while checking (instead
 * of a scan of the bytes), and the subject compared with the one the event names (which only a
 * valid call subject can equal, of the type whose limits were applied). An event whose type is
 * ToolCallRequested (written by agents) gets exactly the same checks as any other.
 */
export function acceptedAsIs(subject: string, data: Uint8Array): WardenEvent | undefined {
  const check = compiledEventCheck();
  if (check === null || data.byteLength > MAX_EVENT_BYTES || !isUtf8(data)) return undefined;
  try {
    // a BOM, which the full decode's TextDecoder drops, stays here and makes JSON.parse throw
    const json: unknown = JSON.parse(Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString("utf8"));
    const request = typeof json === "object" && json !== null && (json as { type?: unknown }).type === "ToolCallRequested";
    if (request && data.byteLength > MAX_REQUEST_BYTES) return undefined;
    if (!check(json, 1, request ? MAX_REQUEST_DEPTH : MAX_JSON_DEPTH)) return undefined;
    const event = json as WardenEvent;
    return subjectOfEvent(event) === subject ? event : undefined;
  } catch {
    return undefined;
  }
}
