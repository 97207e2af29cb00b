import { validateEventJson, type EventOfType, type EventType } from "@warden/contracts/events";
import { subjectOfEvent } from "@warden/contracts/subjects";
import { decodeJson } from "./codec.js";
import type { UndecodableMessage } from "./stage-spec.js";

/** What a stage's message turned out to be. */
export type DecodedStageMessage<T extends EventType> =
  | { readonly kind: "event"; readonly event: EventOfType<T> }
  /** A well-formed event the stage's `accept` turned down: acked unvalidated. */
  | { readonly kind: "skip" }
  | { readonly kind: "undecodable"; readonly problem: UndecodableMessage };

export interface StageDecoding<T extends EventType> {
  /** The types the stage handles (one, or the types that share a subject). */
  readonly eventTypes: readonly T[];
  readonly accept?: ((raw: unknown) => boolean) | undefined;
  readonly limits: { readonly maxBytes?: number; readonly maxDepth?: number };
}

/** Reads a message as the event of one of `eventTypes` its subject names; pure. */
export function decodeStageMessage<T extends EventType>(m: { readonly subject: string; readonly data: Uint8Array }, d: StageDecoding<T>): DecodedStageMessage<T> {
  const undecodable = (problem: UndecodableMessage) => ({ kind: "undecodable", problem }) as const;
  const decoded = decodeJson(m.data, d.limits);
  if (!decoded.ok) return undecodable({ code: decoded.code, reason: decoded.reason, data: m.data });
  const json = decoded.value;
  if (d.accept && !d.accept(json)) return { kind: "skip" };
  const parsed = validateEventJson(json);
  if (!parsed.ok) {
    const reason = parsed.code === "SCHEMA_INVALID" ? `schema-invalid ${d.eventTypes.join("/")}: ${parsed.reason}` : parsed.reason;
    return undecodable({ code: parsed.code, reason, data: m.data, ...(parsed.code === "SCHEMA_INVALID" ? { json } : {}) });
  }
  const event = parsed.value;
  if (!(d.eventTypes as readonly EventType[]).includes(event.type) || subjectOfEvent(event) !== m.subject) {
    return undecodable({ code: "SUBJECT_MISMATCH", reason: `event does not match its subject ${m.subject}`, data: m.data, json, event });
  }
  return { kind: "event", event: event as EventOfType<T> };
}
