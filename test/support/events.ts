import { readCallHistory, type Bus } from "@warden/bus";
import { STREAM_DLQ, type WardenEvent } from "@warden/contracts";

/** Every valid event of one call, in stream order. */
export async function callEvents(bus: Bus, callId: string): Promise<WardenEvent[]> {
  return (await readCallHistory(bus, callId)).flatMap((h) => (h.event ? [h.event] : []));
}

export function eventTypes(events: readonly WardenEvent[]): string[] {
  return events.map((e) => e.type);
}

/** The reasons of dead letters whose original subject contains `needle`. */
export async function deadLetters(bus: Bus, needle: string): Promise<string[]> {
  const info = await bus.jsm.streams.info(STREAM_DLQ);
  const out: string[] = [];
  for (let seq = info.state.first_seq; seq <= info.state.last_seq && seq > 0; seq++) {
    const m = await bus.jsm.streams.getMessage(STREAM_DLQ, { seq });
    if (m && (m.header?.get("Warden-Dlq-Subject") ?? "").includes(needle)) out.push(m.header?.get("Warden-Dlq-Reason") ?? "");
  }
  return out;
}
