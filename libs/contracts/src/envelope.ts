import { newId } from "./ids.js";
import { EVENT_SCHEMA_VERSION, type EventData, type EventEnvelope, type EventOfType, type EventType } from "./events.js";

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
export type CallFields = Pick<EventEnvelope, "callId" | "domain" | "tool" | "principal" | "mode" | "correlationId" | "parentCallId">;

export interface NextEventOptions {
  /** The event this one answers; by default the event it is built from. */
  readonly causationId?: string | null;
  /** A later stage names the resolved tool (a request may name a wire name or an unknown tool). */
  readonly tool?: string;
  /** A refusal may answer the principal the server authenticated rather than the one claimed. */
  readonly principal?: string;
}

/**
 * The next event of a call: same call, domain, tool, principal, mode, run and parent as `from`,
 * answering `from` unless told otherwise. It is always written in this code's
 * EVENT_SCHEMA_VERSION, whatever version `from` was read in: a writer writes what it knows.
 */
export function nextCallEvent<T extends EventType>(
  from: CallFields & { readonly eventId?: string },
  type: T,
  data: EventData<T>,
  stamp: EventStamp,
  o: NextEventOptions = {},
): EventOfType<T> {
  const event = {
    v: EVENT_SCHEMA_VERSION,
    type,
    eventId: stamp.eventId,
    callId: from.callId,
    domain: from.domain,
    tool: o.tool ?? from.tool,
    principal: o.principal ?? from.principal,
    mode: from.mode,
    ts: stamp.ts,
    causationId: o.causationId !== undefined ? o.causationId : (from.eventId ?? null),
    correlationId: from.correlationId,
    ...(from.parentCallId === undefined ? {} : { parentCallId: from.parentCallId }),
    data,
  };
  // TypeScript cannot relate a generic `type` to its data member of the event union
  return event as unknown as EventOfType<T>;
}
