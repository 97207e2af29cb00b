import { mayUseCallId, validateEventJson, type EventOfType, type EventType, type WardenEvent } from "@warden/contracts/events";
import {
  callEventSubject,
  callRequestedAnySubject,
  outcomeSubject,
  STREAM_CALLS,
  subjectOfEvent,
  type OutcomeEventType,
} from "@warden/contracts/subjects";
import type { Bus } from "./bus.js";
import { getStoredMessage } from "./stored-message.js";
import { decodeJson } from "./codec.js";

/**
 * Reads one event of a call straight from the stream (each type is written at most once; a
 * ToolViewCompiled once per turn, named by `suffix` = `t<turn>`); undefined when absent or
 * unreadable (not JSON, schema-invalid, or with members the schema does not know: see
 * `validateEventJson`). Without `suffix` a request is the call's request (see `readRequestOf`),
 * never another principal's stored under the same id; a ToolCallRejected is found whichever stage wrote it. Needs JetStream access to
 * WARDEN_CALLS (a service or the auditor); a client reads its calls through the SDK.
 *
 * @throws when the stream cannot be read (no access, no stream, server unavailable).
 * @example
 * ```ts
 * const requested = await readEvent(bus, "billing", callId, "ApprovalRequested");
 * if (requested !== undefined) log.info({ approvalId: requested.data.approvalId }, "approval pending");
 * ```
 */
export async function readEvent<T extends EventType>(
  bus: Bus,
  domain: string,
  callId: string,
  type: T,
  suffix?: string,
): Promise<EventOfType<T> | undefined> {
  if (type === "ToolCallRequested" && suffix === undefined) return (await readRequestOf(bus, domain, callId)) as EventOfType<T> | undefined;
  const found = await readLast(bus, callEventSubject(domain, callId, type, suffix));
  if (found?.type === type) return found as EventOfType<T>;
  if (found === undefined && type === "ToolCallRejected") {
    const outcome = await readOutcome(bus, domain, callId);
    return outcome?.type === type ? (outcome as EventOfType<T>) : undefined;
  }
  return undefined;
}

/**
 * The call's outcome, whichever it is: a ToolCallFinished, a ToolCallOutcomeUnknown or the
 * executor's ToolCallRejected (they share one append-once subject); undefined while the call has
 * none. Throws as {@link readEvent} does.
 * @example
 * ```ts
 * const outcome = await readOutcome(bus, claim.domain, claim.callId);
 * if (outcome !== undefined) return ACK; // another copy already ended the call
 * ```
 */
export async function readOutcome(bus: Bus, domain: string, callId: string): Promise<EventOfType<OutcomeEventType> | undefined> {
  const found = await readLast(bus, outcomeSubject(domain, callId));
  if (found === undefined) return undefined;
  return found.type === "ToolCallFinished" || found.type === "ToolCallOutcomeUnknown" || found.type === "ToolCallRejected" ? found : undefined;
}

/**
 * What holds a call's claim slot: the executor's ToolCallStarted, or a ToolCallCancelled that came
 * first (they share one append-once subject); undefined while neither is written.
 */
export async function readClaim(bus: Bus, domain: string, callId: string): Promise<EventOfType<"ToolCallStarted" | "ToolCallCancelled"> | undefined> {
  const found = await readLast(bus, callEventSubject(domain, callId, "ToolCallStarted"));
  return found?.type === "ToolCallStarted" || found?.type === "ToolCallCancelled" ? found : undefined;
}

/**
 * The call's request: the one the registry answered (its answer names the principal), or, before
 * it is answered, the first stored by a principal that may use the id, as the registry will answer
 * it. Anyone may store a request under a call id it learnt (under its own principal); that request
 * is never the call's, so it never decides who may cancel the call or what its card shows.
 */
export async function readRequestOf(bus: Bus, domain: string, callId: string): Promise<EventOfType<"ToolCallRequested"> | undefined> {
  const answer = (await readLast(bus, callEventSubject(domain, callId, "ToolArgsValidated"))) ?? (await readLast(bus, callEventSubject(domain, callId, "ToolCallRejected")));
  if (answer !== undefined) {
    const named = await readLast(bus, callEventSubject(domain, callId, "ToolCallRequested", answer.principal));
    return named?.type === "ToolCallRequested" ? named : undefined;
  }
  const subject = callRequestedAnySubject(domain, callId);
  for (let seq = 1; ; ) {
    const msg = await getStoredMessage(bus, STREAM_CALLS, { seq, next_by_subj: subject });
    if (msg === null) return undefined;
    const found = eventOf(msg.data);
    if (found?.type === "ToolCallRequested" && mayUseCallId(found.principal, callId) && msg.subject === subjectOfEvent(found)) return found;
    seq = msg.seq + 1;
  }
}

/** The event stored on one subject (the last, and with append-once the only one); undefined when absent or unreadable. */
export async function readEventOnSubject(bus: Bus, subject: string): Promise<WardenEvent | undefined> {
  return readLast(bus, subject);
}

async function readLast(bus: Bus, subject: string): Promise<WardenEvent | undefined> {
  const msg = await getStoredMessage(bus, STREAM_CALLS, { last_by_subj: subject });
  return msg === null ? undefined : eventOf(msg.data);
}

function eventOf(data: Uint8Array): WardenEvent | undefined {
  const decoded = decodeJson(data);
  if (!decoded.ok) return undefined;
  const parsed = validateEventJson(decoded.value);
  return parsed.ok ? parsed.value : undefined;
}

export interface StoredEvent {
  readonly seq: number;
  readonly subject: string;
  readonly event: WardenEvent;
}
