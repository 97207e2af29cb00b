import { causeOf, type EventCause } from "./event-hash.js";
import { newId } from "./ids.js";
import { traceparentForAnswer } from "./trace-context.js";
import { EVENT_SCHEMA_VERSION, type EventData, type EventEnvelope, type EventOfType, type EventType, type WardenEvent } from "./events.js";

/** When and under which id an event is written; made by the caller so that builders stay pure. */
export interface EventStamp {
  readonly eventId: string;
  readonly ts: string;
}

/** A fresh stamp: a new event id and the current time. */
export function stampNow(now: Date = new Date()): EventStamp {
  return { eventId: newId(), ts: now.toISOString() };
}

/** The fields of a call that every one of its events repeats. */
export type CallFields = Pick<EventEnvelope, "callId" | "domain" | "tool" | "principal" | "mode" | "correlationId" | "parentCallId" | "traceparent">;

export interface NextEventOptions {
  /** A later stage names the resolved tool (a request may name a wire name or an unknown tool). */
  readonly tool?: string;
  /** A refusal may answer the principal the server authenticated rather than the one claimed. */
  readonly principal?: string;
}

/**
 * The next event of a call, answering `from`: same call, domain, tool, principal, mode, run and
 * parent, `causationId` its eventId and `causeHash` its `eventHash`. `from` is a whole event
 * (as read from the stream by `@warden/bus`, or built in memory and written as it is): an event
 * that answers anything else says so with {@link answerCallEvent}. It is always written in this
 * code's EVENT_SCHEMA_VERSION, whatever version `from` was read in: a writer writes what it knows.
 * Its `traceparent` is the active span's when Warden traces (the stage's span), else `from`'s.
 */
export function nextCallEvent<T extends EventType>(
  from: WardenEvent,
  type: T,
  data: EventData<T>,
  stamp: EventStamp,
  o: NextEventOptions = {},
): EventOfType<T> {
  return answerCallEvent(from, causeOf(from), type, data, stamp, o);
}

/**
 * An event of the call `call` answering `cause`, for a writer that does not hold its cause whole
 * (the subagent's view answers its call's ToolCallStarted, read elsewhere; the registry's refusal
 * of an unreadable request answers the bytes it could not read). The cause's id and hash come as
 * one value, so neither can be forgotten. Its `traceparent` is the active span's when Warden
 * traces, else `call`'s (the trace context of the event the call fields were taken from).
 */
export function answerCallEvent<T extends EventType>(
  call: CallFields,
  cause: EventCause,
  type: T,
  data: EventData<T>,
  stamp: EventStamp,
  o: NextEventOptions = {},
): EventOfType<T> {
  const traceparent = traceparentForAnswer(call.traceparent);
  const event = {
    v: EVENT_SCHEMA_VERSION,
    type,
    eventId: stamp.eventId,
    callId: call.callId,
    domain: call.domain,
    tool: o.tool ?? call.tool,
    principal: o.principal ?? call.principal,
    mode: call.mode,
    ts: stamp.ts,
    causationId: cause.eventId,
    causeHash: cause.hash,
    correlationId: call.correlationId,
    ...(call.parentCallId === undefined ? {} : { parentCallId: call.parentCallId }),
    ...(traceparent === undefined ? {} : { traceparent }),
    data,
  };
  // TypeScript cannot relate a generic `type` to its data member of the event union
  return event as unknown as EventOfType<T>;
}
