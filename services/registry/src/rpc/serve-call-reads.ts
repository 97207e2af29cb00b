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
  type JsonValue,
  type Reply,
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
    if (request === undefined) {
      // another principal's call reads exactly like no call at all
      return { ok: false, error: wardenError("NOT_FOUND", `no call ${callId} of ${principal} in domain ${domain}`) };
    }
    return readSettled(bus, domain, callId, req.data);
  });
}

async function readStored(bus: Bus, domain: string, callId: string): Promise<WardenEvent[]> {
  const found = await Promise.all(CALL_READ_EVENT_TYPES.map((t) => readEvent(bus, domain, callId, t)));
  return found.filter((e): e is WardenEvent => e !== undefined);
}

const answer = (events: WardenEvent[]): Reply => ({ ok: true, value: { events } as unknown as JsonValue });

/**
 * Waits (up to the request's timeout) for an event that settles the read. The subscription is made
 * before the stream is read, so nothing slips past; an event seen on it counts only once the
 * stream holds it (a refused publish still reaches core subscribers).
 */
async function readSettled(bus: Bus, domain: string, callId: string, req: CallReadRequest): Promise<Reply> {
  if (req.wait === "none" || req.timeoutMs === 0) return answer(await readStored(bus, domain, callId));
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
  const settled = (events: WardenEvent[]) => events.some((e) => e.type !== "ToolCallRequested" && settlesRead(e.type, req.wait));
  try {
    // `seen` counts settling events on the subscription; one that arrives while the stream is
    // being read is not lost: the next round reads again without waiting
    let seenAtRead = seen;
    let events = await readStored(bus, domain, callId);
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
      events = await readStored(bus, domain, callId);
    }
    return answer(events);
  } finally {
    sub.unsubscribe();
  }
}
