import { z } from "zod";
import { TERMINAL_EVENT_TYPES, WardenEventSchema, type EventType } from "./events.js";

/** Longest one read may wait; a caller that waits longer asks again. */
export const CALL_READ_MAX_WAIT_MS = 60_000;

/**
 * A read of one of the caller's own calls (`warden.calls.<principal>.<domain>.<callId>`): the
 * call's settling events as the stream holds them, at once or once the call has settled.
 * `settled`: an outcome or an approval request (where a non-waiting caller returns); `terminal`:
 * an outcome only.
 */
export const CallReadRequestSchema = z.strictObject({
  wait: z.enum(["none", "settled", "terminal"]).default("none"),
  timeoutMs: z.int().min(0).max(CALL_READ_MAX_WAIT_MS).default(0),
});
export type CallReadRequest = z.infer<typeof CallReadRequestSchema>;
export type CallReadRequestInput = z.input<typeof CallReadRequestSchema>;

export const CallReadReplySchema = z.object({
  /** The call's request and the events that settle it, in no particular order. */
  events: z.array(WardenEventSchema),
});
export type CallReadReply = z.infer<typeof CallReadReplySchema>;

/** The event types a read returns: the request, each outcome and the approval request. */
export const CALL_READ_EVENT_TYPES: readonly EventType[] = ["ToolCallRequested", "ApprovalRequested", ...TERMINAL_EVENT_TYPES];

/** Whether an event of this type ends the wait of a read. */
export function settlesRead(type: EventType, wait: CallReadRequest["wait"]): boolean {
  if (wait === "none") return true;
  if ((TERMINAL_EVENT_TYPES as readonly EventType[]).includes(type)) return true;
  return wait === "settled" && type === "ApprovalRequested";
}
