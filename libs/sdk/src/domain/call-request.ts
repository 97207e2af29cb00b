import { EVENT_SCHEMA_VERSION, ToolCallRequestedSchema, type ToolCallRequested } from "@warden/contracts/events";
import { isSafeToken, MAX_REQUEST_BYTES } from "@warden/contracts/subjects";
import { fail, ok, type Outcome } from "@warden/contracts/errors";
import { type CallMode, type Intent } from "@warden/contracts/descriptor";
import { domainOfTool, isAcceptableToolName } from "./tool-domain.js";

export interface CallRequestInput {
  readonly callId: string;
  readonly eventId: string;
  readonly tool: string;
  readonly args: unknown;
  readonly principal: string;
  readonly mode: CallMode;
  readonly runId: string;
  readonly scope: string | null;
  readonly flags: Readonly<Record<string, boolean>>;
  readonly version?: string | undefined;
  readonly parentCallId?: string | undefined;
  readonly intent?: Intent | undefined;
  /** The call this one undoes (`undo`). */
  readonly compensates?: { readonly callId: string; readonly domain: string } | undefined;
  /** The W3C trace context of the caller's active span, the parent of the call's trace. */
  readonly traceparent?: string | undefined;
  readonly now: Date;
}

/**
 * Builds the ToolCallRequested a caller publishes, refusing locally what must never become a
 * subject or a message: unsafe principals, wildcard tool names, schema-invalid or oversize events.
 */
export function buildCallRequest(input: CallRequestInput): Outcome<ToolCallRequested> {
  if (!isSafeToken(input.principal)) {
    return fail("INVALID_REQUEST", `principal ${JSON.stringify(input.principal)} is not a safe token (^[A-Za-z0-9_-]{1,128}$)`);
  }
  if (!isAcceptableToolName(input.tool)) {
    return fail("INVALID_REQUEST", `tool name ${JSON.stringify(input.tool)} may not be empty or contain '*', '>' or whitespace`);
  }
  const candidate = {
    v: EVENT_SCHEMA_VERSION,
    type: "ToolCallRequested",
    eventId: input.eventId,
    callId: input.callId,
    domain: domainOfTool(input.tool),
    tool: input.tool,
    principal: input.principal,
    mode: input.mode,
    ts: input.now.toISOString(),
    causationId: null,
    // a request answers nothing: the chain of its call starts here
    causeHash: null,
    correlationId: input.runId,
    ...(input.parentCallId === undefined ? {} : { parentCallId: input.parentCallId }),
    ...(input.traceparent === undefined ? {} : { traceparent: input.traceparent }),
    data: {
      args: input.args,
      scope: input.scope,
      flags: input.flags,
      ...(input.version === undefined ? {} : { version: input.version }),
      ...(input.intent === undefined ? {} : { intent: input.intent }),
      ...(input.compensates === undefined ? {} : { compensates: input.compensates }),
    },
  };
  const parsed = ToolCallRequestedSchema.safeParse(candidate);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.join(".") || "(request)";
    return fail("INVALID_REQUEST", `invalid request at ${where}: ${issue?.message ?? "invalid"}`);
  }
  const bytes = Buffer.byteLength(JSON.stringify(parsed.data), "utf8");
  if (bytes > MAX_REQUEST_BYTES) {
    return fail("PAYLOAD_TOO_LARGE", `the request is ${bytes} bytes; the limit is ${MAX_REQUEST_BYTES}`);
  }
  return ok(parsed.data);
}
