import { parseCallSubject, subjectOfEvent, WardenEventSchema, type WardenEvent } from "@warden/contracts";

const decoder = new TextDecoder();

export type DecodedEvent = { readonly ok: true; readonly event: WardenEvent } | { readonly ok: false; readonly reason: string };

/**
 * A stream message as an event: valid JSON, a valid event, and the event its subject names.
 * Anything else is left out of every read model (the stages dead-letter it).
 */
export function decodeCallMessage(subject: string, data: Uint8Array): DecodedEvent {
  const parsedSubject = parseCallSubject(subject);
  if (parsedSubject === undefined) return { ok: false, reason: `not a call subject: ${subject}` };
  let raw: unknown;
  try {
    raw = JSON.parse(decoder.decode(data));
  } catch (err) {
    return { ok: false, reason: `malformed JSON: ${(err as Error).message}` };
  }
  const parsed = WardenEventSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { ok: false, reason: `schema-invalid event: ${issue?.path.join(".") ?? ""} ${issue?.message ?? ""}`.trim() };
  }
  const e = parsed.data;
  if (subjectOfEvent(e) !== subject) {
    return { ok: false, reason: `event does not match its subject ${subject}` };
  }
  return { ok: true, event: e };
}
