import { decodeJson, getStoredMessage, readClaim, readEvent, readEventOnSubject, readOutcome, serveRpc, type Bus, type Logger } from "@warden/bus";
import {
  CALL_READ_EVENT_TYPES,
  CallReadRequestSchema,
  settlesRead,
  type CallReadRequest,
  type EventType,
  type ToolCallRequested,
  type WardenEvent,
} from "@warden/contracts/events";
import {
  ANY_DOMAIN,
  CALL_READ_SUBJECTS,
  CLAIM_EVENT_TYPES,
  OUTCOME_EVENT_TYPES,
  callEventSubject,
  callHistorySubject,
  parseCallReadSubject,
  parseCallSubject,
  QUEUE_REGISTRY,
  requestOfCallSubjects,
  STREAM_CALLS,
} from "@warden/contracts/subjects";
import { wardenError } from "@warden/contracts/errors";
import { type Reply } from "@warden/contracts/descriptor";
import { type JsonValue } from "@warden/contracts/json";
import { ReadWakes } from "../domain/read-wakes.js";

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
    const { principal, callId } = target;
    const domain = target.domain === ANY_DOMAIN ? await domainOfOwnCall(bus, principal, callId) : target.domain;
    if (domain === undefined) return notFound(principal, target.domain, callId);
    const request = await readEvent(bus, domain, callId, "ToolCallRequested", principal);
    if (request === undefined) {
      const refusal = await refusalOfUnreadableRequest(bus, principal, domain, callId, req.data);
      return refusal === undefined ? notFound(principal, domain, callId) : answer([refusal]);
    }
    const read = await readSettled(bus, domain, callId, request, req.data);
    return read === "not_owner" ? notFound(principal, domain, callId) : answer(read);
  });
}

/**
 * A request the registry could not read (not JSON, not UTF-8, too deep, schema-invalid) is still
 * its caller's: the registry refused it in the subject's name, naming the message's sequence. Only
 * that refusal is shown, and only to the principal whose request subject holds that message.
 */
async function refusalOfUnreadableRequest(bus: Bus, principal: string, domain: string, callId: string, req: CallReadRequest): Promise<WardenEvent | undefined> {
  const raw = await getStoredMessage(bus, STREAM_CALLS, { last_by_subj: callEventSubject(domain, callId, "ToolCallRequested", principal) });
  if (raw === null) return undefined;
  // rare (only a hand-made request is unreadable), so a short poll instead of a subscription
  const deadline = Date.now() + (req.wait === "none" ? 0 : Math.min(req.timeoutMs, UNREADABLE_WAIT_MS));
  for (;;) {
    const rejected = await readEvent(bus, domain, callId, "ToolCallRejected");
    if (rejected !== undefined) {
      const ours = rejected.data.stage === "registry" && rejected.principal === principal && rejected.data.error.details?.["requestSeq"] === raw.seq;
      return ours ? rejected : undefined;
    }
    if (Date.now() >= deadline) return undefined;
    await new Promise((r) => setTimeout(r, UNREADABLE_POLL_MS));
  }
}

/**
 * The domain of the principal's own request under this call id (a caller resuming a call knows
 * its id, not always its tool): only the principal's request subject is looked at, so another
 * principal's call under the same id is never found. Undefined when there is none.
 */
async function domainOfOwnCall(bus: Bus, principal: string, callId: string): Promise<string | undefined> {
  const raw = await getStoredMessage(bus, STREAM_CALLS, { last_by_subj: requestOfCallSubjects(principal, callId) });
  return raw === null ? undefined : parseCallSubject(raw.subject)?.domain;
}

const UNREADABLE_WAIT_MS = 5_000;
const UNREADABLE_POLL_MS = 100;

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
 * Before the registry answered, the caller sees only its own request. Each event type is written
 * once per call, so what has been read is kept and never read again.
 */
class OwnedCall {
  private readonly found = new Map<EventType, WardenEvent>();
  private claimTaken = false;

  constructor(
    private readonly bus: Bus,
    private readonly domain: string,
    private readonly callId: string,
    private readonly request: ToolCallRequested,
  ) {}

  async read(types: Iterable<EventType>): Promise<void> {
    const keep = (e: WardenEvent | undefined) => {
      if (e !== undefined && !this.found.has(e.type)) this.found.set(e.type, e);
    };
    const readOne = async (t: EventType) => {
      if (this.found.has(t)) return;
      // a stage's refusal has its own subject; the executor's outcomes are read once, below
      if (t === "ToolCallRejected") return keep(await readEventOnSubject(this.bus, callEventSubject(this.domain, this.callId, t)));
      if ((OUTCOME_EVENT_TYPES as readonly EventType[]).includes(t)) return;
      if (t === "ToolCallCancelled") {
        // the claim slot: ToolCallStarted there means no cancel will ever be stored
        const claim = await readClaim(this.bus, this.domain, this.callId);
        this.claimTaken ||= claim !== undefined;
        return keep(claim?.type === "ToolCallCancelled" ? claim : undefined);
      }
      keep(await readEvent(this.bus, this.domain, this.callId, t));
    };
    const wanted = [...new Set(types)];
    const outcomeWanted = !this.hasOutcome() && wanted.some((t) => (OUTCOME_EVENT_TYPES as readonly EventType[]).includes(t));
    await Promise.all([...wanted.map(readOne), outcomeWanted ? readOutcome(this.bus, this.domain, this.callId).then(keep) : undefined]);
    // a later event found while the validation was not (read at the same moment): it is there now
    if (!this.answered() && this.found.size > 0) await readOne("ToolArgsValidated");
  }

  /** Whether the stream holds the event of this type, or another that took its slot (then it never will). */
  holds(type: EventType): boolean {
    if (this.found.has(type)) return true;
    if ((OUTCOME_EVENT_TYPES as readonly EventType[]).includes(type)) return this.hasOutcome();
    return (CLAIM_EVENT_TYPES as readonly EventType[]).includes(type) && this.claimTaken;
  }

  private hasOutcome(): boolean {
    return this.found.has("ToolCallFinished") || this.found.has("ToolCallOutcomeUnknown") || this.found.get("ToolCallRejected")?.type === "ToolCallRejected";
  }

  /** Whether the registry has answered the request (then every other event may already be there). */
  answered(): boolean {
    const rejected = this.found.get("ToolCallRejected");
    return this.found.has("ToolArgsValidated") || (rejected?.type === "ToolCallRejected" && rejected.data.stage === "registry");
  }

  view(): WardenEvent[] | "not_owner" {
    const rejected = this.found.get("ToolCallRejected");
    const registryAnswer = this.found.get("ToolArgsValidated") ?? (rejected?.type === "ToolCallRejected" && rejected.data.stage === "registry" ? rejected : undefined);
    if (registryAnswer === undefined) return [this.request];
    if (registryAnswer.causationId !== this.request.eventId) return "not_owner";
    return [this.request, ...[...this.found.values()].filter((e) => e.type !== "ToolArgsValidated").map(withoutDryRun)];
  }
}

/**
 * The requester reads its call's state, not the approval card's dry run: that is the tool reading
 * the current state for the person deciding, which the requester may have no read tool for. (The
 * stream keeps the whole event for auditors; this copy is a status, not evidence.)
 */
function withoutDryRun(e: WardenEvent): WardenEvent {
  if (e.type !== "ApprovalRequested" || e.data.preview === undefined) return e;
  const { preview: _shownToPeople, ...data } = e.data;
  return { ...e, data };
}

/**
 * The type of the event a core copy carries, when it settles this read: the subject names the
 * slot, the body which event of it (the claim slot holds ToolCallStarted or ToolCallCancelled).
 */
function settlingTypeOf(subject: string, data: Uint8Array, wait: CallReadRequest["wait"]): EventType | undefined {
  const slot = parseCallSubject(subject);
  const settling = slot?.types.filter((t) => settlesRead(t, wait)) ?? [];
  // every event the outcome slot holds ends a wait: its body (up to an outcome's size) need not be read
  if (settling.length === 0 || settling.length === slot?.types.length) return settling[0];
  const body = decodeJson(data);
  if (!body.ok || typeof body.value !== "object" || body.value === null) return undefined;
  const type = (body.value as { type?: unknown }).type;
  return settling.find((t) => t === type);
}

const answer = (events: readonly WardenEvent[]): Reply => ({ ok: true, value: { events } as unknown as JsonValue });

/**
 * Waits (up to the request's timeout) for an event that settles the read. The subscription is made
 * before the stream is read, so nothing slips past; an event seen on it counts only once the
 * stream holds it (a refused publish still reaches core subscribers, and a stored one may reach
 * them first: `ReadWakes`). Only the event types seen, and those not found yet, are read again.
 */
async function readSettled(bus: Bus, domain: string, callId: string, request: ToolCallRequested, req: CallReadRequest): Promise<WardenEvent[] | "not_owner"> {
  const call = new OwnedCall(bus, domain, callId, request);
  if (req.wait === "none" || req.timeoutMs === 0) {
    await call.read(ANSWER_TYPES);
    return call.view();
  }
  let wake: () => void = () => undefined;
  const wakes = new ReadWakes();
  const sub = bus.nc.subscribe(callHistorySubject(domain, callId), {
    callback: (err, m) => {
      if (err) return;
      const type = settlingTypeOf(m.subject, m.data, req.wait);
      if (type === undefined) return;
      wakes.woke(type);
      wake();
    },
  });
  const deadline = Date.now() + req.timeoutMs;
  const settled = (events: WardenEvent[] | "not_owner") =>
    events === "not_owner" || events.some((e) => e.type !== "ToolCallRequested" && settlesRead(e.type, req.wait));
  try {
    // before the registry answers nothing else can be on the stream; after, anything may be
    await call.read(["ToolArgsValidated", "ToolCallRejected"]);
    if (call.answered()) await call.read(ANSWER_TYPES);
    let events = call.view();
    while (!settled(events)) {
      const left = deadline - Date.now();
      if (left <= 0) break;
      // a wake that came while the stream was being read is not lost: no pause then
      const pause = wakes.pauseMs(left);
      if (pause > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, pause);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
      const types = wakes.take();
      await call.read([...types, "ToolArgsValidated"]);
      wakes.confirm(types, (t) => call.holds(t));
      events = call.view();
    }
    return events;
  } finally {
    sub.unsubscribe();
  }
}
