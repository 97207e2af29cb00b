import { isOutcomeEvent, subjectOfEvent, eventSubjectSuffix, type WardenEvent } from "@warden/contracts";
import type { Bus } from "./bus.js";
import { encodeJson } from "./codec.js";
import { isRevisionConflict, isSubjectFull } from "./nats-errors.js";
import { readEvent, readOutcome } from "./read-event.js";

export type AppendResult =
  | { readonly status: "written"; readonly seq: number }
  | {
      readonly status: "already_written";
      /** The event that holds the slot (undefined if it could not be read back). */
      readonly existing: WardenEvent | undefined;
      /** True when the stored event is this one, or the same type answering the same cause (a redelivery). */
      readonly ours: boolean;
    };

/** The subject holds an event already: the expected-empty check failed, or (a race in a cluster) the per-subject limit. */
export function isAlreadyWrittenError(err: unknown): boolean {
  return isRevisionConflict(err) || isSubjectFull(err);
}

/**
 * Appends an event once. The stream keeps one message per subject and the publish expects the
 * subject to be empty, so a second writer gets "already written" back as a value.
 */
export async function appendEvent(
  bus: Bus,
  event: WardenEvent,
  readBack: ReadBack = defaultReadBack(bus),
  o: { readonly timeoutMs?: number } = {},
): Promise<AppendResult> {
  const subject = subjectOfEvent(event);
  try {
    const ack = await bus.js.publish(subject, encodeJson(event), {
      msgID: event.eventId,
      expect: { lastSubjectSequence: 0 },
      ...(o.timeoutMs === undefined ? {} : { timeout: o.timeoutMs }),
    });
    if (ack.duplicate) return alreadyWritten(readBack, event);
    return { status: "written", seq: ack.seq };
  } catch (err) {
    if (isAlreadyWrittenError(err)) return alreadyWritten(readBack, event);
    throw err;
  }
}

/** How the event holding a slot is read back; a client without JetStream access reads through the call-read API. */
export type ReadBack = (event: WardenEvent) => Promise<WardenEvent | undefined>;

function defaultReadBack(bus: Bus): ReadBack {
  return (event) =>
    isOutcomeEvent(event) ? readOutcome(bus, event.domain, event.callId) : readEvent(bus, event.domain, event.callId, event.type, eventSubjectSuffix(event));
}

async function alreadyWritten(readBack: ReadBack, event: WardenEvent): Promise<AppendResult> {
  const existing = await readBack(event);
  const ours =
    existing !== undefined &&
    (existing.eventId === event.eventId ||
      (existing.type === event.type && event.causationId !== null && existing.causationId === event.causationId));
  return { status: "already_written", existing, ours };
}
