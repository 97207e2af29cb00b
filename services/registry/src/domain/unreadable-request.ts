import type { UndecodableCode } from "@warden/bus";
import { answerCallEvent, type ToolCallRejected, type WardenEvent } from "@warden/contracts/events";
import { isSafeToken } from "@warden/contracts/subjects";
import { wardenError, type WardenError } from "@warden/contracts/errors";
import { CALL_MODES, type CallMode } from "@warden/contracts/descriptor";

/** The identity a request subject carries: what the server let through, so what Warden trusts. */
export interface RequestSubject {
  readonly domain: string;
  readonly callId: string;
  readonly principal: string;
}

/** What can be read off a request Warden cannot accept; each field only when well-formed. */
export interface RequestPeek {
  readonly tool?: string;
  readonly mode?: CallMode;
  readonly eventId?: string;
}

/** Mode of a refusal whose request names none: the most restricted. */
const FALLBACK_MODE: CallMode = "llm";
const UNKNOWN_TOOL_NAME = "unknown";

/** Top-level fields only: the body may be anything, so nothing here walks into it. */
export function peekRequest(json: unknown): RequestPeek {
  if (typeof json !== "object" || json === null || Array.isArray(json)) return {};
  const { tool, mode, eventId } = json as Record<string, unknown>;
  return {
    ...(typeof tool === "string" && tool.length >= 1 && tool.length <= 200 ? { tool } : {}),
    ...(typeof mode === "string" && (CALL_MODES as readonly string[]).includes(mode) ? { mode: mode as CallMode } : {}),
    ...(isSafeToken(eventId) ? { eventId } : {}),
  };
}

/**
 * Why the registry refuses a request it cannot read. A well-formed request that only claims
 * another principal is PRINCIPAL_MISMATCH (as before the runner checked subjects); anything else
 * about the shape is INVALID_REQUEST, and size PAYLOAD_TOO_LARGE. `requestSeq` names the message.
 */
export function unreadableRequestError(subject: RequestSubject, code: UndecodableCode, reason: string, requestSeq: number, event?: WardenEvent): WardenError {
  const details = { reason: code, requestSeq };
  if (code === "TOO_LARGE") return wardenError("PAYLOAD_TOO_LARGE", `the request is ${reason}`, details);
  if (code === "SUBJECT_MISMATCH" && event !== undefined) {
    if (event.type === "ToolCallRequested" && event.domain === subject.domain && event.callId === subject.callId) {
      return wardenError("PRINCIPAL_MISMATCH", `the request names principal ${event.principal} but was published as ${subject.principal}`, details);
    }
    return wardenError(
      "INVALID_REQUEST",
      `the request names ${event.type} ${event.callId} in domain ${event.domain} but was published as ToolCallRequested ${subject.callId} in domain ${subject.domain}`,
      details,
    );
  }
  return wardenError("INVALID_REQUEST", `the request cannot be read: ${reason}`, details);
}

/**
 * The registry's refusal of a request it cannot read, built from the subject: domain, call and
 * principal are the ones the server let through; tool, mode and the request's event id are taken
 * only when readable. The run is the call itself (a run id read from a bad body is not trusted).
 * It answers the message as stored: `causeHash` is `requestHash`, the `messageHash` of its bytes
 * (the eventHash of its JSON, or of the bytes themselves when they are not JSON), even when no
 * event id could be read (`causationId` null).
 */
export function unreadableRejectedEvent(subject: RequestSubject, peek: RequestPeek, requestHash: string, error: WardenError, eventId: string, now: Date): ToolCallRejected {
  const call = {
    callId: subject.callId,
    domain: subject.domain,
    tool: peek.tool ?? UNKNOWN_TOOL_NAME,
    principal: subject.principal,
    mode: peek.mode ?? FALLBACK_MODE,
    correlationId: subject.callId,
  };
  const cause = { eventId: peek.eventId ?? null, hash: requestHash };
  return answerCallEvent(call, cause, "ToolCallRejected", { stage: "registry", error }, { eventId, ts: now.toISOString() });
}
