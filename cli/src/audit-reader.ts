import type { Bus } from "@warden/bus";
import { applyCallEvent, decodeCallMessage, decodeFailureText, isTerminalState, type CallModel } from "@warden/projections";
import { MAX_INVALID_SAMPLES, readStream, type UnreadableMessage } from "@warden/projector";
import { readCallEvents } from "./trace-reader.js";

export interface AuditRange {
  /** Calls requested at or after this time (the stream's own timestamps)... */
  readonly since?: Date;
  /** ...and at or before this one. */
  readonly until?: Date;
}

export interface AuditRead {
  readonly calls: CallModel[];
  /** Messages read from the range, and calls whose history was completed from their own prefix. */
  readonly read: number;
  readonly completed: number;
  /** The stream's last sequence when the read began (the range can reach no further). */
  readonly toSeq: number;
  /** Messages in the range that are not valid events (left out), and the first few of them. */
  readonly invalid: number;
  readonly invalidSamples: readonly UnreadableMessage[];
}

/**
 * Replays a time range of the stream (an ordered consumer from `since`) into call models, one per
 * call requested in the range. A call still open at `until` gets the rest of its history from
 * its own subject prefix, so its verdict does not depend on where the range ends.
 */
export async function readAuditCalls(bus: Bus, range: AuditRange): Promise<AuditRead> {
  const models = new Map<string, CallModel>();
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
    models.set(e.callId, applyCallEvent(models.get(e.callId), e, r.seq));
  });
  let completed = 0;
  for (const [callId, m] of models) {
    if (isTerminalState(m.status) || untilMs === undefined) continue;
    const all = await readCallEvents(bus, callId);
    if (all === undefined) continue;
    let full: CallModel | undefined;
    for (const { seq, event } of all.entries) full = applyCallEvent(full, event, seq);
    if (full !== undefined) models.set(callId, full);
    completed++;
  }
  return { calls: [...models.values()], read: summary.read, completed, toSeq: summary.toSeq, invalid, invalidSamples };
}
