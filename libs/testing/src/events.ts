import { readCallHistory, readEvent, type Bus } from "@warden/bus";
import { type EventOfType, type EventType, type WardenEvent } from "@warden/contracts/events";
import { STREAM_CALLS, STREAM_DLQ } from "@warden/contracts/subjects";
import { eventually } from "./eventually.js";

/** Every event of a call that waited for a person, was granted and ran, in stream order. */
export const APPROVED_CALL_EVENT_TYPES = [
  "ToolCallRequested",
  "ToolArgsValidated",
  "ToolPolicyChecked",
  "ApprovalRequested",
  "ApprovalGranted",
  "ToolCallStarted",
  "ToolCallFinished",
] as const satisfies readonly EventType[];

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

export function waitForEvent<T extends EventType>(bus: Bus, domain: string, callId: string, type: T, timeoutMs = 10_000): Promise<EventOfType<T>> {
  return eventually(async () => {
    const e = await readEvent(bus, domain, callId, type);
    if (e === undefined) throw new Error(`no ${type} for ${callId} yet`);
    return e;
  }, timeoutMs);
}

/** Waits until a stage has acked everything up to `seq`: whatever it does with that event is done. */
export function waitForAck(bus: Bus, durable: string, seq: number): Promise<void> {
  return eventually(async () => {
    const info = await bus.jsm.consumers.info(STREAM_CALLS, durable);
    if (info.ack_floor.stream_seq < seq) throw new Error(`${durable} acked up to ${info.ack_floor.stream_seq}, not ${seq}`);
  });
}
