import type { Bus } from "@warden/bus";
import { decodeJson } from "@warden/bus";
import { callAnyDomainSubject, callHistorySubject, parseCallSubject, STREAM_CALLS, WardenEventSchema, type WardenEvent } from "@warden/contracts";

const READ_TIMEOUT_MS = 5_000;

export interface CallTrace {
  readonly callId: string;
  readonly domain: string;
  readonly events: WardenEvent[];
}

/**
 * Reads a call's events in stream order. The domain is found from the subjects stored under the
 * call id (the request's domain wins); the events are read with an ordered consumer on its prefix.
 */
export async function readCallTrace(bus: Bus, callId: string): Promise<CallTrace | undefined> {
  const info = await bus.jsm.streams.info(STREAM_CALLS, { subjects_filter: callAnyDomainSubject(callId) });
  const subjects = Object.entries(info.state.subjects ?? {});
  const parsed = subjects.map(([s]) => parseCallSubject(s)).filter((p) => p !== undefined);
  const domain = (parsed.find((p) => p.type === "ToolCallRequested") ?? parsed[0])?.domain;
  if (domain === undefined) return undefined;
  const expected = subjects.filter(([s]) => parseCallSubject(s)?.domain === domain).reduce((n, [, count]) => n + count, 0);
  const consumer = await bus.js.consumers.get(STREAM_CALLS, { filter_subjects: callHistorySubject(domain, callId) });
  const events: WardenEvent[] = [];
  try {
    const batch = await consumer.fetch({ max_messages: expected, expires: READ_TIMEOUT_MS });
    for await (const m of batch) {
      const decoded = decodeJson(m.data);
      const event = decoded.ok ? WardenEventSchema.safeParse(decoded.value) : undefined;
      if (event?.success) events.push(event.data);
      if (m.info.pending === 0) break;
    }
  } finally {
    await consumer.delete().catch(() => undefined);
  }
  return { callId, domain, events };
}
