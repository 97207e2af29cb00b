import type { Task } from "@modelcontextprotocol/sdk/types.js";
import { TERMINAL_EVENT_TYPES, type ApprovalRequested, type EventType, type ToolResult, type WardenEvent } from "@warden/contracts/events";
import { renderApprovalSummary } from "@warden/contracts/approval";
import { resultFromEvent } from "@warden/sdk";

/** The URI template of a call's handle resource: what a client without tasks reads later. */
export const CALL_HANDLE_TEMPLATE = "warden://calls/{callId}";

/** The handle resource of one call: its state and, once it ended, its result. */
export function callHandleUri(callId: string): string {
  return `warden://calls/${encodeURIComponent(callId)}`;
}

/** The call id a handle URI names, or undefined when the URI is no call handle. */
export function callIdOfHandle(uri: string): string | undefined {
  const m = /^warden:\/\/calls\/([^/?#]+)$/.exec(uri);
  if (m?.[1] === undefined) return undefined;
  try {
    return decodeURIComponent(m[1]);
  } catch {
    return undefined;
  }
}

const TERMINAL: readonly EventType[] = TERMINAL_EVENT_TYPES;
const SUMMARY_MAX = 500;

/**
 * What the approval card says first, in one line a client can show while the call waits: the
 * tool's summary of the call (or its title and args) as the person sees it, who may decide and
 * until when.
 */
export function approvalStatusMessage(asked: ApprovalRequested): string {
  const d = asked.data;
  const args = d.argsPreview.length > SUMMARY_MAX ? `${d.argsPreview.slice(0, SUMMARY_MAX)}…` : d.argsPreview;
  const what = d.summaryTemplate === undefined ? `${d.title} ${args}` : renderApprovalSummary(d.summaryTemplate, d.args);
  const who = d.deciders !== undefined && d.deciders.length > 0 ? d.deciders.join(" or ") : "a person";
  return `Waiting for ${who} to approve: ${what} (approval ${d.approvalId}, expires ${d.expiresAt})`;
}

/** The call's result once it ended (its terminal event read as a waiting caller reads it), else undefined. */
export function endedResult(events: readonly WardenEvent[]): ToolResult | undefined {
  const end = events.find((e) => TERMINAL.includes(e.type));
  return end === undefined ? undefined : resultFromEvent(end, true);
}

export interface CallTaskOptions {
  /** How often a client should ask again (ms). */
  readonly pollIntervalMs: number;
}

/**
 * The MCP task of a Warden call, read from its events (the task id is the call id, so any
 * session of the same principal reads the same task): `input_required` from its approval
 * request (the card's summary as the message) until it ends; `completed` when it succeeded;
 * `cancelled`; `failed` for every other end, with its reason (a denial's, an expiry's, the
 * tool's error). The read holds no grant or start event, so a granted call that is running
 * still shows `input_required` until it ends. Undefined when there is no request (no such call).
 */
export function callTaskOf(events: readonly WardenEvent[], opts: CallTaskOptions): Task | undefined {
  const request = events.find((e) => e.type === "ToolCallRequested");
  if (request === undefined) return undefined;
  const times = events.map((e) => e.ts).sort();
  const base = {
    taskId: request.callId,
    ttl: null,
    createdAt: request.ts,
    lastUpdatedAt: times[times.length - 1] ?? request.ts,
    pollInterval: opts.pollIntervalMs,
  };
  const result = endedResult(events);
  if (result !== undefined) {
    if (result.ok) return { ...base, status: "completed" };
    const message = result.error === undefined ? result.status : `${result.error.code}: ${result.error.message}`;
    return { ...base, status: result.status === "cancelled" ? "cancelled" : "failed", statusMessage: message };
  }
  const asked = events.find((e): e is ApprovalRequested => e.type === "ApprovalRequested");
  if (asked !== undefined) return { ...base, status: "input_required", statusMessage: approvalStatusMessage(asked) };
  return { ...base, status: "working", statusMessage: "Warden is checking and running the call" };
}
