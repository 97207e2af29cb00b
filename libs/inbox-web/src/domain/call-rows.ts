import type { OwnCall } from "@warden/contracts/events";
import { durationText, TERMINAL_CALL_STATES } from "@warden/projections";

/** How a row's state looks: done well, waiting for a person, on its way, or refused / failed. */
export type CallTone = "ok" | "wait" | "run" | "bad";

/** One line of the Calls page, as the page shows it (every value set as text there). */
export interface CallRow {
  readonly callId: string;
  readonly requestedAt: string;
  readonly tool: string;
  readonly principal: string;
  readonly mode: string;
  /** The call state as it is stored (`awaiting_approval`), for the page's attributes and tests. */
  readonly status: string;
  /** The state in words (`waiting for approval`). */
  readonly state: string;
  readonly tone: CallTone;
  /** False once the call has its outcome: the page keeps asking about open calls only by refreshing the list. */
  readonly open: boolean;
  /** From the request to its outcome; while the call is open, to now (`so far`): a call waiting for a person keeps counting. */
  readonly duration: string;
  readonly argsPreview: string;
  readonly approver: string | null;
  /** `CODE: message` of a refusal or failure. */
  readonly error: string | null;
}

const STATES: Readonly<Record<string, readonly [string, CallTone]>> = {
  requested: ["requested", "run"],
  validated: ["validated", "run"],
  approved: ["approved", "run"],
  running: ["running", "run"],
  awaiting_approval: ["waiting for approval", "wait"],
  succeeded: ["succeeded", "ok"],
  rejected: ["refused", "bad"],
  denied: ["denied", "bad"],
  expired: ["approval expired", "bad"],
  failed: ["failed", "bad"],
  outcome_unknown: ["outcome unknown", "bad"],
  cancelled: ["cancelled", "bad"],
};

const TERMINAL: ReadonlySet<string> = new Set(TERMINAL_CALL_STATES);

/**
 * The page's rows: newest first by the request's stream sequence, whatever order they came in.
 * `nowMs` is the time an open call has waited up to (the list refreshes every few seconds).
 */
export function callRows(calls: readonly OwnCall[], nowMs: number = Date.now()): CallRow[] {
  return [...calls]
    .sort((a, b) => b.seq - a.seq)
    .map((c) => {
      const [state, tone] = STATES[c.status] ?? [c.status.replaceAll("_", " "), "run"];
      const open = !TERMINAL.has(c.status);
      return {
        callId: c.callId,
        requestedAt: c.requestedAt,
        tool: c.tool,
        principal: c.principal,
        mode: c.mode,
        status: c.status,
        state,
        tone,
        open,
        duration: open ? `${durationText(openFor(c, nowMs))} so far` : durationText(c.durationMs),
        argsPreview: c.argsPreview,
        approver: c.approver ?? null,
        error: c.error === undefined ? null : `${c.error.code}: ${c.error.message}`,
      };
    });
}

/** How long an open call has waited: since its request, or its recorded span when the request's time cannot be read or lies ahead. */
function openFor(c: OwnCall, nowMs: number): number {
  const since = nowMs - Date.parse(c.requestedAt);
  return Number.isFinite(since) ? Math.max(since, c.durationMs) : c.durationMs;
}
