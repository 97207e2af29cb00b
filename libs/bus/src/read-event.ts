import { callEventSubject, callRequestedAnySubject, STREAM_CALLS, WardenEventSchema, type EventOfType, type EventType, type WardenEvent } from "@warden/contracts";
import type { Bus } from "./bus.js";
import { decodeJson } from "./codec.js";

/**
 * Reads one event of a call (each type is written at most once; a ToolViewCompiled once per turn,
 * named by `suffix` = `t<turn>`); undefined when absent or unreadable. A request is found whatever
 * its principal when `suffix` is omitted.
 */
export async function readEvent<T extends EventType>(
  bus: Bus,
  domain: string,
  callId: string,
  type: T,
  suffix?: string,
): Promise<EventOfType<T> | undefined> {
  const subject =
    type === "ToolCallRequested" && suffix === undefined
      ? callRequestedAnySubject(domain, callId)
      : callEventSubject(domain, callId, type, suffix);
  const msg = await bus.jsm.direct.getMessage(STREAM_CALLS, { last_by_subj: subject });
  if (msg === null) return undefined;
  const decoded = decodeJson(msg.data);
  if (!decoded.ok) return undefined;
  const parsed = WardenEventSchema.safeParse(decoded.value);
  if (!parsed.success || parsed.data.type !== type) return undefined;
  return parsed.data as EventOfType<T>;
}

export interface StoredEvent {
  readonly seq: number;
  readonly subject: string;
  readonly event: WardenEvent;
}
