import { appendEvent, type AppendResult, type Bus } from "@warden/bus";
import { nextCallEvent, stampNow, type ToolCallFinished, type ToolCallStarted, type WardenEvent } from "@warden/contracts/events";
import type { Logger } from "pino";
import type { ExecutorDeps } from "./executor-deps.js";
import { withBackoff } from "./with-backoff.js";

/**
 * Appends a run's result in the call's outcome slot, retrying through an outage until `untilMs`.
 * If another outcome holds the slot (this copy was paused past its claim and another recorded
 * outcome unknown, or re-ran the tool), the result is kept as a ToolCallLateResult for the audit:
 * it never becomes a second outcome. Both answer `claim`, the ToolCallStarted the run was made under.
 */
export async function recordResult(deps: ExecutorDeps, claim: ToolCallStarted, finished: ToolCallFinished, untilMs: number, log: Logger): Promise<AppendResult> {
  const appended = await withBackoff(() => appendShort(deps.bus, finished), { untilMs, maxDelayMs: RESULT_RETRY_MAX_DELAY_MS });
  if (appended.status === "written" || appended.ours) return appended;
  const existing = appended.existing;
  if (existing === undefined || (existing.type !== "ToolCallFinished" && existing.type !== "ToolCallOutcomeUnknown" && existing.type !== "ToolCallRejected")) {
    log.error({ existingEventId: existing?.eventId }, "the outcome slot holds something unreadable; the result is only in this log");
    return appended;
  }
  log.warn({ outcome: existing.type, outcomeEventId: existing.eventId }, "the call already had its outcome; recording this run's result as late");
  const late = nextCallEvent(claim, "ToolCallLateResult", {
    ...finished.data,
    outcomeEventId: existing.eventId,
    outcomeType: existing.type,
  }, stampNow());
  await withBackoff(() => appendShort(deps.bus, late), { untilMs: Math.max(untilMs, Date.now() + 5_000) });
  return appended;
}

/** Each attempt gives up sooner than the client's default, so a server that is back is tried again soon. */
const ATTEMPT_TIMEOUT_MS = 1_500;
/**
 * A known result is asked again at least every half second: with up to 2 s between attempts (plus
 * the 1.5 s an attempt may wait) a result was still unwritten 5 s after its server came back, past
 * its claim's deadline, and became a late result behind an OutcomeUnknown (chaos, nats-server
 * 2.15.1 killed 5 times in 14 s).
 */
const RESULT_RETRY_MAX_DELAY_MS = 500;

function appendShort(bus: Bus, event: WardenEvent): Promise<AppendResult> {
  // the event id is the de-duplication id: an attempt that timed out but landed is not written twice
  return appendEvent(bus, event, undefined, { timeoutMs: ATTEMPT_TIMEOUT_MS });
}
