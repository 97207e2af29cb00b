import {
  callEventSubject,
  callRequestedAnySubject,
  outcomeSubject,
  STREAM_CALLS,
  validateEventJson,
  type EventOfType,
  type EventType,
  type OutcomeEventType,
  type WardenEvent,
} from "@warden/contracts";
import type { Bus } from "./bus.js";
import { decodeJson } from "./codec.js";

/**
 * Reads one event of a call straight from the stream (each type is written at most once; a
 * ToolViewCompiled once per turn, named by `suffix` = `t<turn>`); undefined when absent or
 * unreadable (not JSON, schema-invalid, or with members the schema does not know: see
 * `validateEventJson`). A request is found whatever its principal when `suffix`
 * is omitted; a ToolCallRejected is found whichever stage wrote it. Needs JetStream access to
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
  const subject =
    type === "ToolCallRequested" && suffix === undefined
      ? callRequestedAnySubject(domain, callId)
      : callEventSubject(domain, callId, type, suffix);
  const found = await readLast(bus, subject);
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

/** The event stored on one subject (the last, and with append-once the only one); undefined when absent or unreadable. */
export async function readEventOnSubject(bus: Bus, subject: string): Promise<WardenEvent | undefined> {
  return readLast(bus, subject);
}

async function readLast(bus: Bus, subject: string): Promise<WardenEvent | undefined> {
  const msg = await bus.jsm.direct.getMessage(STREAM_CALLS, { last_by_subj: subject });
  if (msg === null) return undefined;
  const decoded = decodeJson(msg.data);
  if (!decoded.ok) return undefined;
  const parsed = validateEventJson(decoded.value);
  return parsed.ok ? parsed.value : undefined;
}

export interface StoredEvent {
  readonly seq: number;
  readonly subject: string;
  readonly event: WardenEvent;
}
