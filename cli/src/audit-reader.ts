import type { Bus } from "@warden/bus";
import { TERMINAL_EVENT_TYPES, type WardenEvent } from "@warden/contracts/events";
import { applyCallEvent, decodeCallMessage, decodeFailureText, isTerminalState, type CallModel } from "@warden/projections";
import { MAX_INVALID_SAMPLES, readStream, type UnreadableMessage } from "@warden/projector";
import type { RecordedCall } from "./domain/call-spans.js";
import { MAX_TRACE_DEPTH, readCallEvents } from "./trace-reader.js";

export interface AuditRange {
  /** Calls requested at or after this time (the stream's own timestamps)... */
  readonly since?: Date;
  /** ...and at or before this one. */
  readonly until?: Date;
}

/** What a read of a range found, whatever it folded the calls into. */
export interface RangeRead<T> {
  readonly calls: T[];
  /** Messages read from the range, and calls whose history was completed from their own prefix. */
  readonly read: number;
  readonly completed: number;
  /** The stream's last sequence when the read began (the range can reach no further). */
  readonly toSeq: number;
  /** Messages in the range that are not valid events (left out), and the first few of them. */
  readonly invalid: number;
  readonly invalidSamples: readonly UnreadableMessage[];
}

export type AuditRead = RangeRead<CallModel>;

/** How a read folds one call's events, and whether the folded call may still change. */
interface CallFold<T> {
  add(acc: T | undefined, event: WardenEvent, seq: number): T;
  open(acc: T): boolean;
}

/**
 * Replays a time range of the stream (direct gets from `since`) into call models, one per
 * call requested in the range. A call still open at `until` gets the rest of its history from
 * its own subject prefix, so its verdict does not depend on where the range ends.
 */
export async function readAuditCalls(bus: Bus, range: AuditRange): Promise<AuditRead> {
  return readRange(bus, range, { add: applyCallEvent, open: (m) => !isTerminalState(m.status) });
}

const TERMINAL: ReadonlySet<string> = new Set(TERMINAL_EVENT_TYPES);

/**
 * The events of every call requested in the range (completed past `until` as {@link readAuditCalls}
 * does), and of the calls above them that delegated them (a subagent's call requested before the
 * range), so each call's trace is whole: what `audit export --otlp` rebuilds spans from.
 */
export async function readAuditCallEvents(bus: Bus, range: AuditRange): Promise<RangeRead<RecordedCall> & { readonly ancestors: number }> {
  const r = await readRange<{ callId: string; events: WardenEvent[] }>(bus, range, {
    add: (acc, event) => {
      if (acc === undefined) return { callId: event.callId, events: [event] };
      acc.events.push(event);
      return acc;
    },
    open: (c) => !c.events.some((e) => TERMINAL.has(e.type)),
  });
  const calls = new Map<string, RecordedCall>(r.calls.map((c) => [c.callId, c]));
  let ancestors = 0;
  let missing = parentsMissing(r.calls, calls);
  for (let depth = 0; depth < MAX_TRACE_DEPTH && missing.length > 0; depth++) {
    const found: RecordedCall[] = [];
    for (const callId of missing) {
      const all = await readCallEvents(bus, callId);
      if (all === undefined || all.entries.length === 0) continue;
      const call = { callId, events: all.entries.map((e) => e.event) };
      calls.set(callId, call);
      found.push(call);
      ancestors++;
    }
    missing = parentsMissing(found, calls);
  }
  return { ...r, calls: [...calls.values()], ancestors };
}

function parentsMissing(calls: readonly RecordedCall[], known: ReadonlyMap<string, RecordedCall>): string[] {
  return [...new Set(calls.flatMap((c) => c.events[0]?.parentCallId ?? []))].filter((id) => !known.has(id));
}

async function readRange<T>(bus: Bus, range: AuditRange, fold: CallFold<T>): Promise<RangeRead<T>> {
  const folded = new Map<string, T>();
  const requested = new Set<string>();
  const untilMs = range.until?.getTime();
  let invalid = 0;
  const invalidSamples: UnreadableMessage[] = [];
  const summary = await readStream(bus, range.since === undefined ? {} : { since: range.since }, (r) => {
    if (untilMs !== undefined && r.storedAtMs > untilMs) return false;
    const d = decodeCallMessage(r.subject, r.data);
    if (!d.ok) {
      if (invalid++ < MAX_INVALID_SAMPLES) invalidSamples.push({ seq: r.seq, subject: r.subject, reason: decodeFailureText(d) });
      return;
    }
    const e = d.event;
    if (e.type === "ToolCallRequested") requested.add(e.callId);
    // calls requested before the range are not in it
    if (!requested.has(e.callId)) return;
    folded.set(e.callId, fold.add(folded.get(e.callId), e, r.seq));
  });
  let completed = 0;
  for (const [callId, acc] of folded) {
    if (!fold.open(acc) || untilMs === undefined) continue;
    const all = await readCallEvents(bus, callId);
    if (all === undefined) continue;
    let full: T | undefined;
    for (const { seq, event } of all.entries) full = fold.add(full, event, seq);
    if (full !== undefined) folded.set(callId, full);
    completed++;
  }
  return { calls: [...folded.values()], read: summary.read, completed, toSeq: summary.toSeq, invalid, invalidSamples };
}
