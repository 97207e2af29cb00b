import { appendEvent, decodeJson, readEvent, type Bus } from "@warden/bus";
import {
  callHistorySubject,
  TERMINAL_EVENT_TYPES,
  wardenError,
  WardenEventSchema,
  type ToolCallRequested,
  type ToolResult,
  type WardenEvent,
} from "@warden/contracts";
import { pendingResult, resultFromEvent } from "./domain/event-result.js";

type Subscription = ReturnType<Bus["nc"]["subscribe"]>;

export interface WatchOptions {
  readonly wait: boolean;
  readonly timeoutMs: number;
}

/** A call in flight; `cancel` ends its wait early (the client is closing). */
export interface InFlight {
  cancel(): void;
}

/**
 * Publishes a request and waits for its answer. The subscription to the call's history is made
 * before the append, so no event can slip past between publishing and listening.
 */
export async function publishAndAwait(
  bus: Bus,
  request: ToolCallRequested,
  opts: WatchOptions,
  track: (f: InFlight) => () => void,
): Promise<ToolResult> {
  const { callId, domain } = request;
  let approvalId: string | undefined;
  let settle!: (r: ToolResult | "timeout") => void;
  const settled = new Promise<ToolResult | "timeout">((r) => (settle = r));
  let sub: Subscription;
  try {
    sub = bus.nc.subscribe(callHistorySubject(domain, callId), {
      callback: (err, msg) => {
        if (err) return;
        const event = parseEvent(msg.data);
        if (event === undefined || event.callId !== callId) return;
        if (resultFromEvent(event, opts.wait) === undefined) return;
        void confirmed(bus, event).then((stored) => {
          if (stored === undefined) return;
          if (stored.type === "ApprovalRequested") approvalId = stored.data.approvalId;
          const result = resultFromEvent(stored, opts.wait);
          if (result !== undefined) settle(result);
        });
      },
    });
  } catch (err) {
    // a closed or draining connection throws at once
    return { callId, ok: false, status: "failed", error: wardenError("UNAVAILABLE", `cannot follow the call: ${(err as Error).message}`) };
  }
  const untrack = track({ cancel: () => settle("timeout") });
  const timer = setTimeout(() => settle("timeout"), opts.timeoutMs);
  try {
    const appended = await appendEvent(bus, request);
    if (appended.status === "already_written" && !appended.ours) {
      return { callId, ok: false, status: "rejected", error: wardenError("DUPLICATE_CALL_ID", `call id ${callId} is already in use`) };
    }
    const outcome = await settled;
    if (outcome !== "timeout") return outcome;
    return await readOutcomeOnce(bus, request, opts, approvalId);
  } catch (err) {
    return {
      callId,
      ok: false,
      status: "failed",
      error: wardenError("UNAVAILABLE", `could not publish or follow the call: ${(err as Error).message}`),
    };
  } finally {
    clearTimeout(timer);
    untrack();
    sub.unsubscribe();
  }
}

/**
 * The stored copy of an event seen on a core subscription. A publish the stream refused (a
 * second answer, or a forged one) still reaches core subscribers; only what the stream holds counts.
 */
async function confirmed(bus: Bus, event: WardenEvent): Promise<WardenEvent | undefined> {
  const stored = await readEvent(bus, event.domain, event.callId, event.type).catch(() => undefined);
  return stored?.eventId === event.eventId ? stored : undefined;
}

function parseEvent(data: Uint8Array): WardenEvent | undefined {
  const decoded = decodeJson(data);
  if (!decoded.ok) return undefined;
  const parsed = WardenEventSchema.safeParse(decoded.value);
  return parsed.success ? parsed.data : undefined;
}

/** After a wait runs out, the stream is the truth: a core message may have been missed on a reconnect. */
async function readOutcomeOnce(bus: Bus, request: ToolCallRequested, opts: WatchOptions, seenApprovalId: string | undefined): Promise<ToolResult> {
  const types = [...TERMINAL_EVENT_TYPES, "ApprovalRequested" as const];
  const found = await Promise.all(types.map((t) => readEvent(bus, request.domain, request.callId, t).catch(() => undefined)));
  for (const event of found) {
    if (event === undefined || event.type === "ApprovalRequested") continue;
    const result = resultFromEvent(event, opts.wait);
    if (result !== undefined) return result;
  }
  const requested = found.find((e) => e?.type === "ApprovalRequested");
  if (requested?.type === "ApprovalRequested") {
    return resultFromEvent(requested, opts.wait) ?? pendingResult(request.callId, opts.timeoutMs, requested.data.approvalId);
  }
  return pendingResult(request.callId, opts.timeoutMs, seenApprovalId);
}
