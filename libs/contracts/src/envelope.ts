import type { EventEnvelope } from "./events.js";

/** The envelope of an event that answers `cause`: same call, run, principal and parent. */
export function answeringEnvelope(cause: EventEnvelope, stamp: { readonly eventId: string; readonly ts: string }): EventEnvelope {
  return {
    v: cause.v,
    eventId: stamp.eventId,
    callId: cause.callId,
    domain: cause.domain,
    tool: cause.tool,
    principal: cause.principal,
    mode: cause.mode,
    ts: stamp.ts,
    causationId: cause.eventId,
    correlationId: cause.correlationId,
    ...(cause.parentCallId === undefined ? {} : { parentCallId: cause.parentCallId }),
  };
}
