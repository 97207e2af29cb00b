import { getStoredMessage, type Bus } from "@warden/bus";
import { EVENT_TYPES, SUFFIXED_EVENT_TYPES } from "@warden/contracts/events";
import {
  BUCKET_CALLS,
  callAnyDomainSubject,
  callEventSubject,
  callHistorySubject,
  callRequestedAnySubject,
  isSafeToken,
  parseCallSubject,
  STREAM_CALLS,
} from "@warden/contracts/subjects";
import { CallModelSchema, decodeCallMessage, decodeFailureText, type CallModel, type TraceEntry } from "@warden/projections";
import { getStoredModel } from "./stored-model.js";
import { readStream } from "./stream-reader.js";

export interface CallEvents {
  readonly callId: string;
  readonly domain: string;
  readonly entries: TraceEntry[];
  /** Messages under the call's subjects that are not valid events (left out of every model). */
  readonly unreadable: UnreadableMessage[];
}

export interface UnreadableMessage {
  readonly seq: number;
  readonly subject: string;
  readonly reason: string;
}

/**
 * One call's events in stream order, reading only that call's subjects. With its projected model
 * the events are fetched by sequence and anything newer by its exact subject (a few direct gets,
 * whatever the stream's size); without it, the subjects stored under the call id are listed.
 */
export async function readCallEvents(bus: Bus, callId: string): Promise<CallEvents | undefined> {
  if (!isSafeToken(callId)) return undefined;
  const model = await getStoredModel(await bus.kvm.open(BUCKET_CALLS), callId, CallModelSchema);
  return model === undefined ? scanCall(bus, callId) : fetchKnownCall(bus, model.value);
}

async function fetchKnownCall(bus: Bus, m: CallModel): Promise<CallEvents> {
  const seen = new Set(m.events.map((e) => e.type));
  const unsuffixed = EVENT_TYPES.filter((t) => !(SUFFIXED_EVENT_TYPES as readonly string[]).includes(t) && !seen.has(t));
  const probes = unsuffixed.map((t) => callEventSubject(m.domain, m.callId, t));
  if (!seen.has("ToolCallRequested")) probes.push(callRequestedAnySubject(m.domain, m.callId));
  const found = await Promise.all([
    ...m.events.map((e) => getStoredMessage(bus, STREAM_CALLS, { seq: e.seq })),
    ...probes.map((subject) => getStoredMessage(bus, STREAM_CALLS, { last_by_subj: subject })),
  ]);
  // a subagent's views are one subject per turn: look past the turns the model knows
  for (let turn = m.viewTurns + 1; ; turn++) {
    const view = await getStoredMessage(bus, STREAM_CALLS, { last_by_subj: callEventSubject(m.domain, m.callId, "ToolViewCompiled", `t${turn}`) });
    if (view === null) break;
    found.push(view);
  }
  const bySeq = new Map<number, TraceEntry>();
  const unreadable = new Map<number, UnreadableMessage>();
  for (const msg of found) {
    if (msg === null || bySeq.has(msg.seq) || unreadable.has(msg.seq)) continue;
    const d = decodeCallMessage(msg.subject, msg.data);
    // the model is keyed by call id alone: an event of the same id under another domain is another
    // call (the model flags it identity_mismatch), not part of this one's timeline
    if (d.ok && d.event.domain === m.domain) bySeq.set(msg.seq, { seq: msg.seq, event: d.event });
    else if (!d.ok) unreadable.set(msg.seq, { seq: msg.seq, subject: msg.subject, reason: decodeFailureText(d) });
  }
  const bySeqOrder = <T extends { seq: number }>(a: T, b: T) => a.seq - b.seq;
  return { callId: m.callId, domain: m.domain, entries: [...bySeq.values()].sort(bySeqOrder), unreadable: [...unreadable.values()].sort(bySeqOrder) };
}

async function scanCall(bus: Bus, callId: string): Promise<CallEvents | undefined> {
  const info = await bus.jsm.streams.info(STREAM_CALLS, { subjects_filter: callAnyDomainSubject(callId) });
  const parsed = Object.keys(info.state.subjects ?? {})
    .map((s) => parseCallSubject(s))
    .filter((p) => p !== undefined);
  const domain = (parsed.find((p) => p.types.includes("ToolCallRequested")) ?? parsed[0])?.domain;
  if (domain === undefined) return undefined;
  const entries: TraceEntry[] = [];
  const unreadable: UnreadableMessage[] = [];
  await readStream(bus, { filter: callHistorySubject(domain, callId) }, (r) => {
    const d = decodeCallMessage(r.subject, r.data);
    if (d.ok) entries.push({ seq: r.seq, event: d.event });
    else unreadable.push({ seq: r.seq, subject: r.subject, reason: decodeFailureText(d) });
  });
  return { callId, domain, entries, unreadable };
}
