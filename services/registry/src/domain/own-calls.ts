import type { OwnCall, ToolCallRequested, WardenEvent } from "@warden/contracts/events";
import type { CallModel, TraceEntry } from "@warden/projections";

/** One request of the asking person as the stream holds it, with the call's model when projected. */
export interface FoundRequest {
  readonly seq: number;
  readonly request: ToolCallRequested;
  readonly model?: CallModel;
}

/**
 * The list's row of one request, or undefined when the call under its id is not this person's
 * (the projector folded another principal's request, or another domain's, as the call).
 * A request the projector has not folded yet is listed as `requested`.
 */
export function ownCallRow(principal: string, found: FoundRequest): OwnCall | undefined {
  const { seq, request, model } = found;
  if (request.principal !== principal) return undefined;
  const base = {
    callId: request.callId,
    domain: request.domain,
    principal,
    mode: request.mode,
    seq,
    requestedAt: request.ts,
  };
  if (model === undefined) {
    return { ...base, tool: request.tool, status: "requested", durationMs: 0, argsPreview: cutPreview(JSON.stringify(request.data.args)) };
  }
  if (model.principal !== principal || model.domain !== request.domain) return undefined;
  const startedAt = model.requestedAt ?? model.firstTs;
  const error = model.rejection ?? model.result?.error ?? (model.outcomeUnknown === undefined ? undefined : { code: "OUTCOME_UNKNOWN", message: model.outcomeUnknown.reason });
  return {
    ...base,
    tool: model.tool,
    requestedAt: startedAt,
    status: model.status,
    durationMs: Math.max(0, Date.parse(model.lastTs) - Date.parse(startedAt)),
    argsPreview: model.argsPreview ?? cutPreview(JSON.stringify(request.data.args)),
    ...(model.approval?.approver === undefined ? {} : { approver: model.approval.approver }),
    ...(error === undefined ? {} : { error: { code: error.code, message: error.message } }),
  };
}

/** Newest first by the request's stream sequence (the stream's order, not the callers' clocks), at most `limit`. */
export function newestFirst<T extends { readonly seq: number }>(rows: readonly T[], limit: number): T[] {
  return [...rows].sort((a, b) => b.seq - a.seq).slice(0, limit);
}

/** The list's args preview is at most this long (the timeline shows the request's args). */
export const OWN_CALL_PREVIEW_CHARS = 200;

function cutPreview(text: string): string {
  return text.length <= OWN_CALL_PREVIEW_CHARS ? text : `${text.slice(0, OWN_CALL_PREVIEW_CHARS - 1)}…`;
}

/** Why a call's events are not shown to this person, or the events they may see. */
export type OwnTrace = { readonly ok: true; readonly entries: TraceEntry[] } | { readonly ok: false; readonly reason: "not_owner" };

/**
 * The events of a call its requester may see, in stream order: its own request, and, once the
 * registry answered that request (its ToolArgsValidated, or its refusal, names the request as
 * cause), every other event of the call; another principal's request under the same id is not
 * shown. As in `warden.calls` reads, the approval card's dry run is removed.
 */
export function ownTrace(request: TraceEntry & { readonly event: ToolCallRequested }, others: readonly TraceEntry[]): OwnTrace {
  const rest = others.filter(({ event: e }) => e.type !== "ToolCallRequested");
  const answer = rest.find(({ event: e }) => e.type === "ToolArgsValidated") ?? rest.find(({ event: e }) => e.type === "ToolCallRejected" && e.data.stage === "registry");
  // before the registry answers, nothing else of the call can be there: the request alone
  if (answer === undefined) return { ok: true, entries: [request] };
  // another principal's request was answered under this id: that call is not this person's
  if (answer.event.causationId !== request.event.eventId) return { ok: false, reason: "not_owner" };
  return { ok: true, entries: [request, ...rest.map((x) => ({ seq: x.seq, event: withoutDryRun(x.event) }))].sort((a, b) => a.seq - b.seq) };
}

/** The requester reads its call's state, not the tool's dry run shown to the people deciding it. */
function withoutDryRun(e: WardenEvent): WardenEvent {
  if (e.type !== "ApprovalRequested" || e.data.preview === undefined) return e;
  const { preview: _shownToPeople, ...data } = e.data;
  return { ...e, data };
}
