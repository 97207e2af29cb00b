import { getStoredMessage, serveRpc, type Bus, type KV, type Logger } from "@warden/bus";
import { OwnCallsRequestSchema, type OwnCall, type OwnCallList, type OwnCallTrace, type ToolCallRequested } from "@warden/contracts/events";
import {
  BUCKET_CALLS,
  callHistorySubject,
  lastSubjectToken,
  MAX_JSON_DEPTH,
  OWN_CALLS_SUBJECTS,
  parseCallSubject,
  QUEUE_REGISTRY,
  requestOfCallSubjects,
  requestsOfPrincipalSubject,
  STREAM_CALLS,
} from "@warden/contracts/subjects";
import { wardenError } from "@warden/contracts/errors";
import { type Reply } from "@warden/contracts/descriptor";
import { parseJsonGuarded, validateJson, type JsonValue } from "@warden/contracts/json";
import { CallModelSchema, decodeCallMessage, type CallModel, type TraceEntry } from "@warden/projections";
import { newestFirst, ownCallRow, ownTrace, type FoundRequest } from "../domain/own-calls.js";

type Subscription = ReturnType<typeof serveRpc>;

/** Direct gets in flight at once for one list. */
const READS_IN_FLIGHT = 32;

/**
 * Serves `warden.registry.calls.<principal>`: a person's own calls, listed newest first or one
 * traced whole (the web inbox's Calls page). The principal token is pinned to the asker by NATS
 * permissions (people only); a call is theirs when its request carries their name and the registry
 * answered that request, as for `warden.calls` reads. Only that call's subjects are read, by
 * direct gets (the registry has no consumer on the call stream).
 */
export function serveOwnCalls(bus: Bus, log: Logger): Subscription {
  return serveRpc(bus, OWN_CALLS_SUBJECTS, QUEUE_REGISTRY, log, async (payload, msg) => {
    const principal = lastSubjectToken(msg.subject);
    const req = validateJson(OwnCallsRequestSchema, payload ?? {});
    if (principal === undefined || !req.ok) {
      return { ok: false, error: wardenError("INVALID_REQUEST", `bad own-calls request on ${msg.subject}: ${req.ok ? "malformed subject" : req.reason}`) };
    }
    if (req.value.kind === "list") return answer(await listOwnCalls(bus, principal, req.value.limit));
    const trace = await traceOwnCall(bus, principal, req.value.callId);
    if (trace === undefined) return { ok: false, error: wardenError("NOT_FOUND", `no call ${req.value.callId} of ${principal}`) };
    // a call whose events together exceed one message is read by an auditor (`warden trace`)
    const max = bus.nc.info?.max_payload ?? 1024 * 1024;
    if (JSON.stringify(trace).length > max - REPLY_ENVELOPE_BYTES) {
      return { ok: false, error: wardenError("PAYLOAD_TOO_LARGE", `the events of call ${req.value.callId} exceed one message (${max} bytes); an auditor reads them with warden trace`) };
    }
    return answer(trace);
  });
}

/** Room left in a reply for `{ ok, value }` around the trace. */
const REPLY_ENVELOPE_BYTES = 1024;

const answer = (value: OwnCallList | OwnCallTrace): Reply => ({ ok: true, value: value as unknown as JsonValue });

/**
 * The person's newest calls: every request subject of theirs (one per call), each request read
 * for its stream sequence, the newest `limit` with their projected models. The cost grows with the
 * person's calls in the stream (people make few; agents do not ask here).
 */
async function listOwnCalls(bus: Bus, principal: string, limit: number): Promise<OwnCallList> {
  const info = await bus.jsm.streams.info(STREAM_CALLS, { subjects_filter: requestsOfPrincipalSubject(principal) });
  const subjects = Object.keys(info.state.subjects ?? {});
  const requests: { seq: number; request: ToolCallRequested }[] = [];
  for (let i = 0; i < subjects.length; i += READS_IN_FLIGHT) {
    const read = await Promise.all(subjects.slice(i, i + READS_IN_FLIGHT).map((s) => readRequest(bus, s)));
    for (const r of read) if (r !== undefined) requests.push(r);
  }
  const calls = await bus.kvm.open(BUCKET_CALLS);
  const newest = newestFirst(requests, limit);
  const found: FoundRequest[] = await Promise.all(
    newest.map(async (r) => {
      const model = await readModel(calls, r.request.callId);
      return model === undefined ? r : { ...r, model };
    }),
  );
  return { calls: found.map((f) => ownCallRow(principal, f)).filter((c): c is OwnCall => c !== undefined), total: subjects.length };
}

async function readRequest(bus: Bus, subject: string): Promise<{ seq: number; request: ToolCallRequested } | undefined> {
  const msg = await getStoredMessage(bus, STREAM_CALLS, { last_by_subj: subject });
  if (msg === null) return undefined;
  // an unreadable request is no call to list (its refusal is read through warden.calls)
  const d = decodeCallMessage(msg.subject, msg.data);
  return d.ok && d.event.type === "ToolCallRequested" ? { seq: msg.seq, request: d.event } : undefined;
}

/** A model nests no deeper than the events it is folded from; its size is the server's limit. */
const MODEL_LIMITS = { maxBytes: 64 * 1024 * 1024, maxDepth: MAX_JSON_DEPTH };

/** The projected model of a call; undefined while the projector has not folded it (or it is unreadable). */
async function readModel(calls: KV, callId: string): Promise<CallModel | undefined> {
  const e = await calls.get(callId);
  if (e === null || e.operation !== "PUT") return undefined;
  const json = parseJsonGuarded(e.value, MODEL_LIMITS);
  if (!json.ok) return undefined;
  const parsed = validateJson(CallModelSchema, json.value);
  return parsed.ok ? parsed.value : undefined;
}

/** One of the person's calls, every event it may see (ownTrace), or undefined when it is not theirs. */
async function traceOwnCall(bus: Bus, principal: string, callId: string): Promise<OwnCallTrace | undefined> {
  const raw = await getStoredMessage(bus, STREAM_CALLS, { last_by_subj: requestOfCallSubjects(principal, callId) });
  if (raw === null) return undefined;
  const decoded = decodeCallMessage(raw.subject, raw.data);
  if (!decoded.ok || decoded.event.type !== "ToolCallRequested") return undefined;
  const request = { seq: raw.seq, event: decoded.event };
  const domain = parseCallSubject(raw.subject)!.domain;
  const info = await bus.jsm.streams.info(STREAM_CALLS, { subjects_filter: callHistorySubject(domain, callId) });
  // each subject of a call holds one event (append-once): its last message is the event
  const others = await Promise.all(
    Object.keys(info.state.subjects ?? {})
      .filter((s) => s !== raw.subject)
      .map(async (subject): Promise<TraceEntry | undefined> => {
        const m = await getStoredMessage(bus, STREAM_CALLS, { last_by_subj: subject });
        if (m === null) return undefined;
        const d = decodeCallMessage(m.subject, m.data);
        return d.ok ? { seq: m.seq, event: d.event } : undefined;
      }),
  );
  const own = ownTrace(request, others.filter((e): e is TraceEntry => e !== undefined));
  return own.ok ? { entries: own.entries } : undefined;
}
