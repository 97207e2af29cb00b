import { busObserver } from "./bus-observer.js";
import { tracingEnabled, type WardenEvent } from "@warden/contracts/events";
import { isOutcomeEvent, subjectOfEvent, eventSubjectSuffix } from "@warden/contracts/subjects";
import type { Bus } from "./bus.js";
import { encodeJson } from "./codec.js";
import { appenderOf } from "./js-appender.js";
import { isRevisionConflict, isSubjectFull } from "./nats-errors.js";
import { readClaim, readEvent, readOutcome } from "./read-event.js";
import { noteAppend } from "./stage-span.js";

/**
 * What {@link appendEvent} did: `written` at stream sequence `seq`, or `already_written` when
 * the event's subject (its slot) held an event already; `ours` tells a redelivery of our own
 * write (go on as if written) from another writer's event (someone else got there first).
 */
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
 * Appends an event once, on `subjectOfEvent(event)`. The stream keeps one message per subject
 * and the publish expects the subject to be empty, so a second writer gets "already written" back
 * as a value, never an error; outcomes that exclude each other share one subject, so the first
 * one written wins. The event's `eventId` is the message id, so a retried publish is deduplicated.
 *
 * @param readBack - how the event holding the slot is read back for `existing` and `ours`;
 *   defaults to a direct read of the stream ({@link readEvent} / {@link readOutcome}). A client
 *   without JetStream access passes one that reads through the registry's call-read API.
 * @param o - `timeoutMs`: how long to wait for the server's ack (default: the JetStream client's timeout).
 * @throws when the server does not ack in time, refuses the identity the subject, or the stream
 *   is missing (broken infrastructure: `runStage` turns a throw into a retry).
 * @example
 * ```ts
 * const r = await appendEvent(bus, event);
 * if (r.status === "already_written" && !r.ours) {
 *   log.info({ existing: r.existing?.type }, "the call already has its answer");
 * }
 * return ACK;
 * ```
 */
export async function appendEvent(
  bus: Bus,
  event: WardenEvent,
  readBack: ReadBack = defaultReadBack(bus),
  o: { readonly timeoutMs?: number } = {},
): Promise<AppendResult> {
  const subject = subjectOfEvent(event);
  try {
    // the pipelined appender of this connection (one reply subscription, one deadline sweep),
    // not js.publish's request per append: appends are most of what a stage does (issue 12)
    const ack = await appenderOf(bus.nc).append(subject, encodeJson(event), {
      msgId: event.eventId,
      expectLastSubjectSequence: 0,
      timeoutMs: o.timeoutMs ?? bus.js.getOptions().timeout ?? DEFAULT_ACK_TIMEOUT_MS,
    });
    if (ack.duplicate) return observed(event, await alreadyWritten(readBack, event));
    return observed(event, { status: "written", seq: ack.seq });
  } catch (err) {
    if (isAlreadyWrittenError(err)) return observed(event, await alreadyWritten(readBack, event));
    throw err;
  }
}

function observed(event: WardenEvent, result: AppendResult): AppendResult {
  busObserver().appended?.(event, result.status);
  if (tracingEnabled()) noteAppend(event, result.status);
  return result;
}

/** The JetStream client's own default ack timeout. */
const DEFAULT_ACK_TIMEOUT_MS = 5_000;

/** How the event holding a slot is read back; a client without JetStream access reads through the call-read API. */
export type ReadBack = (event: WardenEvent) => Promise<WardenEvent | undefined>;

function defaultReadBack(bus: Bus): ReadBack {
  return (event) =>
    isOutcomeEvent(event)
      ? readOutcome(bus, event.domain, event.callId)
      : // a claim and a cancel share a slot: the one there answers either
        event.type === "ToolCallStarted" || event.type === "ToolCallCancelled"
        ? readClaim(bus, event.domain, event.callId)
        : readEvent(bus, event.domain, event.callId, event.type, eventSubjectSuffix(event));
}

async function alreadyWritten(readBack: ReadBack, event: WardenEvent): Promise<AppendResult> {
  const existing = await readBack(event);
  const ours =
    existing !== undefined &&
    (existing.eventId === event.eventId ||
      (existing.type === event.type && event.causationId !== null && existing.causationId === event.causationId));
  return { status: "already_written", existing, ours };
}
