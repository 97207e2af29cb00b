import { EVENT_SCHEMA_VERSION, newId, type EventData, type EventOfType, type EventType, type WardenEvent } from "@warden/contracts";

/** The next event of a call: same call, tool, principal and run; caused by `causationId`. */
export function nextEvent<T extends EventType>(from: WardenEvent, type: T, causationId: string, data: EventData<T>): EventOfType<T> {
  return {
    v: EVENT_SCHEMA_VERSION,
    type,
    eventId: newId(),
    callId: from.callId,
    domain: from.domain,
    tool: from.tool,
    principal: from.principal,
    mode: from.mode,
    ts: new Date().toISOString(),
    causationId,
    correlationId: from.correlationId,
    ...(from.parentCallId === undefined ? {} : { parentCallId: from.parentCallId }),
    data,
  } as EventOfType<T>;
}
