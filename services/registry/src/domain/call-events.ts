import {
  argsHash,
  EVENT_SCHEMA_VERSION,
  type EventEnvelope,
  type ToolArgsValidated,
  type ToolCallRejected,
  type ToolCallRequested,
  type WardenError,
} from "@warden/contracts";
import type { ValidatedCall } from "./validate-call.js";

/** Fields an answer carries over from the request it answers. */
function envelope(req: ToolCallRequested, eventId: string, now: Date, principal = req.principal): Omit<EventEnvelope, "tool"> {
  return {
    v: EVENT_SCHEMA_VERSION,
    eventId,
    callId: req.callId,
    domain: req.domain,
    principal,
    mode: req.mode,
    ts: now.toISOString(),
    causationId: req.eventId,
    correlationId: req.correlationId,
    ...(req.parentCallId === undefined ? {} : { parentCallId: req.parentCallId }),
  };
}

export function argsValidatedEvent(req: ToolCallRequested, call: ValidatedCall, eventId: string, now: Date): ToolArgsValidated {
  return {
    ...envelope(req, eventId, now),
    type: "ToolArgsValidated",
    tool: call.tool,
    data: {
      version: call.version,
      descriptorHash: call.descriptorHash,
      grade: call.grade,
      argsHash: argsHash(req.data.args),
      scope: req.data.scope,
      flags: req.data.flags,
      args: req.data.args,
      ...(call.requestedAs === undefined ? {} : { requestedAs: call.requestedAs }),
    },
  };
}

/**
 * A registry refusal; `tool` stays the name as requested, since it may resolve to nothing.
 * `principal` overrides the request's claim (a PRINCIPAL_MISMATCH answers the subject's principal).
 */
export function registryRejectedEvent(req: ToolCallRequested, error: WardenError, eventId: string, now: Date, principal?: string): ToolCallRejected {
  return {
    ...envelope(req, eventId, now, principal),
    type: "ToolCallRejected",
    tool: req.tool,
    data: { stage: "registry", error },
  };
}
