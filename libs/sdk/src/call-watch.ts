import { appendEvent, isPermissionViolation, requestRpc, type Bus } from "@warden/bus";
import {
  CallReadReplySchema,
  type CallReadRequestInput,
  type ToolCallRequested,
  type ToolResult,
  type WardenEvent,
} from "@warden/contracts/events";
import { callReadSubject, MAX_JSON_DEPTH } from "@warden/contracts/subjects";
import { wardenError, type Outcome } from "@warden/contracts/errors";
import { argsHash, safeParseGuarded } from "@warden/contracts/json";
import { decidersOfRequest, pendingResult, resultFromEvent } from "./domain/event-result.js";

export interface WatchOptions {
  readonly wait: boolean;
  readonly timeoutMs: number;
}

export interface PublishOptions extends WatchOptions {
  /**
   * The call id comes from an idempotency key: a request already on its subject for the same
   * tool and args is this call asked again, and is followed instead of refused.
   */
  readonly idempotent?: boolean;
  /** Told once the server has stored the request (see {@link CallOptions.onAccepted}). */
  readonly onAccepted?: (callId: string) => void;
}

/** A call in flight; `cancel` ends its wait early (the client is closing). */
export interface InFlight {
  cancel(): void;
}

/** Extra time a read request gets beyond the wait it asks for: the answer still has to travel. */
const READ_SLACK_MS = 1_000;
const RETRY_MS = 200;
/**
 * One long read waits at most this long. A registry copy that dies mid-read never answers, so
 * its caller waits out the whole read (plus the slack): short slices bound that. A 60 s read made
 * agents wait up to a minute for calls that had long ended; 5 s slices (7 s with the slack) still
 * let an agent wait 12.4 s in the chaos suite's SIGKILL storm, when the copy that took its next
 * read was killed too. 2.5 s (3.5 s) costs an idle waiting call one read per 2.5 s instead of 5 s.
 */
const READ_SLICE_MS = 2_500;

/**
 * Reads the caller's own call through `warden.calls.<principal>.<domain>.<callId>`: the only
 * window a client has onto the stream (it has no JetStream access of its own).
 */
export async function readOwnCall(bus: Bus, principal: string, domain: string, callId: string, req: CallReadRequestInput): Promise<Outcome<WardenEvent[]>> {
  const timeoutMs = (req.timeoutMs ?? 0) + READ_SLACK_MS;
  const reply = await requestRpc(bus, callReadSubject(principal, domain, callId), req, timeoutMs);
  if (!reply.ok) return reply;
  // the reply wraps each event two levels down; an event deeper than any reader accepts is refused, never a crash
  const parsed = safeParseGuarded(CallReadReplySchema, reply.value, MAX_JSON_DEPTH + 2);
  if (!parsed.ok) return { ok: false, error: wardenError("INTERNAL", `unexpected call read reply: ${parsed.code}`) };
  return { ok: true, value: parsed.value.events };
}

/**
 * Publishes a request and waits for its answer by asking the registry to read the call once it
 * settles (long reads, asked again until the caller's timeout). The stream is the only truth.
 */
export async function publishAndAwait(
  bus: Bus,
  request: ToolCallRequested,
  opts: PublishOptions,
  track: (f: InFlight) => () => void,
): Promise<ToolResult> {
  const { callId, domain, principal } = request;
  const deadline = Date.now() + opts.timeoutMs;
  let cancel!: () => void;
  const cancelled = new Promise<"cancelled">((r) => (cancel = () => r("cancelled")));
  const untrack = track({ cancel });
  try {
    const appended = await appendEvent(bus, request, async (ev) => {
      const read = await readOwnCall(bus, principal, domain, callId, {});
      return read.ok ? read.value.find((e) => e.type === ev.type) : undefined;
    });
    if (appended.status === "already_written" && !appended.ours && !(opts.idempotent === true && sameCall(appended.existing, request))) {
      const message = opts.idempotent === true
        ? `the idempotency key of call ${callId} was already used for another call (a different tool or args)`
        : `call id ${callId} is already in use`;
      return { callId, ok: false, status: "rejected", error: wardenError("DUPLICATE_CALL_ID", message) };
    }
    opts.onAccepted?.(callId);
    return await follow(bus, { principal, domain, callId }, opts, deadline, cancelled);
  } catch (err) {
    if (isPermissionViolation(err)) {
      return {
        callId,
        ok: false,
        status: "rejected",
        error: wardenError("FORBIDDEN", `this connection may not ask for calls as principal ${principal} (its credentials name another principal)`),
      };
    }
    return { callId, ok: false, status: "failed", error: wardenError("UNAVAILABLE", `could not publish or follow the call: ${(err as Error).message}`) };
  } finally {
    untrack();
  }
}

/** Whether the request already on the subject asks for what this one asks: the same tool with the same args. */
function sameCall(existing: WardenEvent | undefined, request: ToolCallRequested): boolean {
  return existing?.type === "ToolCallRequested" && existing.tool === request.tool && argsHash(existing.data.args) === argsHash(request.data.args);
}

/** The call one of a principal's clients follows: who asked, in which domain, under which id. */
export interface CallRef {
  readonly principal: string;
  readonly domain: string;
  readonly callId: string;
}

/**
 * Waits for the answer of a call already asked for (a caller that returned at its approval
 * request and now waits for its end): the same reads as {@link publishAndAwait}, nothing published.
 */
export async function awaitOwnCall(bus: Bus, ref: CallRef, opts: WatchOptions, track: (f: InFlight) => () => void): Promise<ToolResult> {
  const deadline = Date.now() + opts.timeoutMs;
  let cancel!: () => void;
  const cancelled = new Promise<"cancelled">((r) => (cancel = () => r("cancelled")));
  const untrack = track({ cancel });
  try {
    return await follow(bus, ref, opts, deadline, cancelled);
  } catch (err) {
    return { callId: ref.callId, ok: false, status: "failed", error: wardenError("UNAVAILABLE", `could not follow the call: ${(err as Error).message}`) };
  } finally {
    untrack();
  }
}

async function follow(bus: Bus, ref: CallRef, opts: WatchOptions, deadline: number, cancelled: Promise<"cancelled">): Promise<ToolResult> {
  const { principal, domain, callId } = ref;
  let approvalId: string | undefined;
  let deciders: readonly string[] = [];
  for (;;) {
    const left = deadline - Date.now();
    if (left <= 0) break;
    const wait = Math.min(left, READ_SLICE_MS);
    const read = await Promise.race([readOwnCall(bus, principal, domain, callId, { wait: opts.wait ? "terminal" : "settled", timeoutMs: wait }), cancelled]);
    if (read === "cancelled") break;
    if (!read.ok) {
      if (!read.error.retryable) return { callId, ok: false, status: "failed", error: read.error };
      // the registry may be restarting: ask again shortly
      if ((await Promise.race([sleep(Math.min(RETRY_MS, Math.max(0, deadline - Date.now()))), cancelled])) === "cancelled") break;
      continue;
    }
    const settled = settle(read.value, opts.wait);
    if (settled.result !== undefined) return settled.result;
    if (approvalId === undefined && settled.approvalId !== undefined) {
      approvalId = settled.approvalId;
      deciders = settled.deciders ?? [];
    }
  }
  return pendingResult(callId, opts.timeoutMs, approvalId, deciders);
}

function settle(events: readonly WardenEvent[], wait: boolean): { result?: ToolResult; approvalId?: string; deciders?: readonly string[] } {
  let approvalId: string | undefined;
  let deciders: readonly string[] | undefined;
  for (const event of events) {
    if (event.type === "ApprovalRequested") {
      approvalId = event.data.approvalId;
      deciders = decidersOfRequest(event);
      continue;
    }
    const result = resultFromEvent(event, wait);
    if (result !== undefined) return { result };
  }
  const requested = events.find((e) => e.type === "ApprovalRequested");
  const result = requested === undefined ? undefined : resultFromEvent(requested, wait);
  return { ...(result === undefined ? {} : { result }), ...(approvalId === undefined ? {} : { approvalId }), ...(deciders === undefined ? {} : { deciders }) };
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
