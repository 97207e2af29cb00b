import { decodeJson, readEvent, serveRpc, type Bus, type Logger } from "@warden/bus";
import {
  CALL_READ_EVENT_TYPES,
  CALL_READ_SUBJECTS,
  callHistorySubject,
  CallReadRequestSchema,
  parseCallReadSubject,
  parseCallSubject,
  QUEUE_REGISTRY,
  settlesRead,
  wardenError,
  type CallReadRequest,
  type EventType,
  type JsonValue,
  type Reply,
  type ToolCallRequested,
  type WardenEvent,
} from "@warden/contracts";

type Subscription = ReturnType<typeof serveRpc>;

/**
 * Serves `warden.calls.<principal>.<domain>.<callId>`: a caller reads its own calls, and only
 * those (the principal token is pinned to the caller by NATS permissions, and the call's request
 * subject must carry the same principal). Clients have no JetStream access of their own; this is
 * how they learn a call's outcome.
 */
export function serveCallReads(bus: Bus, log: Logger): Subscription {
  return serveRpc(bus, CALL_READ_SUBJECTS, QUEUE_REGISTRY, log, async (payload, msg) => {
    const target = parseCallReadSubject(msg.subject);
    const req = CallReadRequestSchema.safeParse(payload ?? {});
    if (target === undefined || !req.success) {
      return { ok: false, error: wardenError("INVALID_REQUEST", `bad call read on ${msg.subject}: ${req.error?.issues[0]?.message ?? "malformed subject"}`) };
    }
    const { principal, domain, callId } = target;
    const request = await readEvent(bus, domain, callId, "ToolCallRequested", principal);
    if (request === undefined) return notFound(principal, domain, callId);
    const read = await readSettled(bus, domain, callId, request, req.data);
    return read === "not_owner" ? notFound(principal, domain, callId) : answer(read);
  });
}

function notFound(principal: string, domain: string, callId: string): Reply {
  // another principal's call reads exactly like no call at all
  return { ok: false, error: wardenError("NOT_FOUND", `no call ${callId} of ${principal} in domain ${domain}`) };
}

/** Everything but the request: the caller's own request is known, and any other principal's is none of its business. */
const ANSWER_TYPES: readonly EventType[] = ["ToolArgsValidated", ...CALL_READ_EVENT_TYPES.filter((t) => t !== "ToolCallRequested")];

/**
 * The call's events as this request's owner may see them. A call belongs to the request the
 * registry answered (its ToolArgsValidated, or its own rejection, names that request as cause):
 * another principal can append a request under a call id it learnt, but never own that call.
 * Before the registry answered, the caller sees only its own request.
 */
async function readOwned(bus: Bus, domain: string, callId: string, request: ToolCallRequested): Promise<WardenEvent[] | "not_owner"> {
  const read: (WardenEvent | undefined)[] = await Promise.all(ANSWER_TYPES.map((t) => readEvent(bus, domain, callId, t)));
  const found = read.filter((e): e is WardenEvent => e !== undefined);
  const registryAnswer = found.find((e) => e.type === "ToolArgsValidated" || (e.type === "ToolCallRejected" && e.data.stage === "registry"));
  if (registryAnswer === undefined) return [request];
  if (registryAnswer.causationId !== request.eventId) return "not_owner";
  return [request, ...found.filter((e) => e.type !== "ToolArgsValidated")];
}

const answer = (events: readonly WardenEvent[]): Reply => ({ ok: true, value: { events } as unknown as JsonValue });

/**
 * Waits (up to the request's timeout) for an event that settles the read. The subscription is made
 * before the stream is read, so nothing slips past; an event seen on it counts only once the
 * stream holds it (a refused publish still reaches core subscribers).
 */
async function readSettled(bus: Bus, domain: string, callId: string, request: ToolCallRequested, req: CallReadRequest): Promise<WardenEvent[] | "not_owner"> {
  if (req.wait === "none" || req.timeoutMs === 0) return readOwned(bus, domain, callId, request);
  let wake: () => void = () => undefined;
  let seen = 0;
  const sub = bus.nc.subscribe(callHistorySubject(domain, callId), {
    callback: (err, m) => {
      if (err) return;
      const parsed = parseCallSubject(m.subject);
      if (parsed !== undefined && settlesRead(parsed.type, req.wait) && decodeJson(m.data).ok) {
        seen++;
        wake();
      }
    },
  });
  const deadline = Date.now() + req.timeoutMs;
  const settled = (events: WardenEvent[] | "not_owner") =>
    events === "not_owner" || events.some((e) => e.type !== "ToolCallRequested" && settlesRead(e.type, req.wait));
  try {
    // `seen` counts settling events on the subscription; one that arrives while the stream is
    // being read is not lost: the next round reads again without waiting
    let seenAtRead = seen;
    let events = await readOwned(bus, domain, callId, request);
    while (!settled(events)) {
      const left = deadline - Date.now();
      if (left <= 0) break;
      if (seen === seenAtRead) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
      seenAtRead = seen;
      events = await readOwned(bus, domain, callId, request);
    }
    return events;
  } finally {
    sub.unsubscribe();
  }
}
