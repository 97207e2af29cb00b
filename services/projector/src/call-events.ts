import { kvGetJson, type Bus } from "@warden/bus";
import {
  BUCKET_CALLS,
  callAnyDomainSubject,
  callEventSubject,
  callHistorySubject,
  callRequestedAnySubject,
  EVENT_TYPES,
  isSafeToken,
  parseCallSubject,
  STREAM_CALLS,
  SUFFIXED_EVENT_TYPES,
} from "@warden/contracts";
import { CallModelSchema, decodeCallMessage, type CallModel, type TraceEntry } from "@warden/projections";
import { readStream } from "./stream-reader.js";

export interface CallEvents {
  readonly callId: string;
  readonly domain: string;
  readonly entries: TraceEntry[];
}

/**
 * One call's events in stream order, reading only that call's subjects. With its projected model
 * the events are fetched by sequence and anything newer by its exact subject (a few direct gets,
 * whatever the stream's size); without it, the subjects stored under the call id are listed.
 */
export async function readCallEvents(bus: Bus, callId: string): Promise<CallEvents | undefined> {
  if (!isSafeToken(callId)) return undefined;
  const model = await kvGetJson(await bus.kvm.open(BUCKET_CALLS), callId, CallModelSchema);
  return model === undefined ? scanCall(bus, callId) : fetchKnownCall(bus, model.value);
}

async function fetchKnownCall(bus: Bus, m: CallModel): Promise<CallEvents> {
  const seen = new Set(m.events.map((e) => e.type));
  const unsuffixed = EVENT_TYPES.filter((t) => !(SUFFIXED_EVENT_TYPES as readonly string[]).includes(t) && !seen.has(t));
  const probes = unsuffixed.map((t) => callEventSubject(m.domain, m.callId, t));
  if (!seen.has("ToolCallRequested")) probes.push(callRequestedAnySubject(m.domain, m.callId));
  const found = await Promise.all([
    ...m.events.map((e) => bus.jsm.direct.getMessage(STREAM_CALLS, { seq: e.seq })),
    ...probes.map((subject) => bus.jsm.direct.getMessage(STREAM_CALLS, { last_by_subj: subject })),
  ]);
  // a subagent's views are one subject per turn: look past the turns the model knows
  for (let turn = m.viewTurns + 1; ; turn++) {
    const view = await bus.jsm.direct.getMessage(STREAM_CALLS, { last_by_subj: callEventSubject(m.domain, m.callId, "ToolViewCompiled", `t${turn}`) });
    if (view === null) break;
    found.push(view);
  }
  const bySeq = new Map<number, TraceEntry>();
  for (const msg of found) {
    if (msg === null || bySeq.has(msg.seq)) continue;
    const d = decodeCallMessage(msg.subject, msg.data);
    if (d.ok) bySeq.set(msg.seq, { seq: msg.seq, event: d.event });
  }
  return { callId: m.callId, domain: m.domain, entries: [...bySeq.values()].sort((a, b) => a.seq - b.seq) };
}

async function scanCall(bus: Bus, callId: string): Promise<CallEvents | undefined> {
  const info = await bus.jsm.streams.info(STREAM_CALLS, { subjects_filter: callAnyDomainSubject(callId) });
  const parsed = Object.keys(info.state.subjects ?? {})
    .map((s) => parseCallSubject(s))
    .filter((p) => p !== undefined);
  const domain = (parsed.find((p) => p.types.includes("ToolCallRequested")) ?? parsed[0])?.domain;
  if (domain === undefined) return undefined;
  const entries: TraceEntry[] = [];
  await readStream(bus, { filter: callHistorySubject(domain, callId) }, (r) => {
    const d = decodeCallMessage(r.subject, r.data);
    if (d.ok) entries.push({ seq: r.seq, event: d.event });
  });
  return { callId, domain, entries };
}
