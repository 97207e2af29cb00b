import { nextCallEvent, type ToolArgsValidated, type ToolCallRejected, type ToolCallRequested } from "@warden/contracts/events";
import { type WardenError } from "@warden/contracts/errors";
import { argsHash } from "@warden/contracts/json";
import type { ValidatedCall } from "./validate-call.js";

export function argsValidatedEvent(req: ToolCallRequested, call: ValidatedCall, eventId: string, now: Date): ToolArgsValidated {
  const data = {
    version: call.version,
    descriptorHash: call.descriptorHash,
    grade: call.grade,
    argsHash: argsHash(req.data.args),
    scope: req.data.scope,
    flags: req.data.flags,
    args: req.data.args,
    ...(call.requestedAs === undefined ? {} : { requestedAs: call.requestedAs }),
  };
  return nextCallEvent(req, "ToolArgsValidated", data, { eventId, ts: now.toISOString() }, { tool: call.tool });
}

/**
 * A registry refusal; `tool` stays the name as requested, since it may resolve to nothing.
 * `principal` overrides the request's claim (a PRINCIPAL_MISMATCH answers the subject's principal).
 */
export function registryRejectedEvent(req: ToolCallRequested, error: WardenError, eventId: string, now: Date, principal?: string): ToolCallRejected {
  const stamp = { eventId, ts: now.toISOString() };
  return nextCallEvent(req, "ToolCallRejected", { stage: "registry", error }, stamp, principal === undefined ? {} : { principal });
}
