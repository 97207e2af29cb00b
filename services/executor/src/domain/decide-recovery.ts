import type { ToolCallStarted } from "@warden/contracts/events";

export interface RecoveryFacts {
  /** The claim someone else (or an earlier delivery of ours) wrote. */
  readonly started: ToolCallStarted;
  /** A ToolCallFinished or ToolCallOutcomeUnknown is already on the stream. */
  readonly hasResult: boolean;
  readonly nowMs: number;
  /** How long past the claim's deadline the claimant may still be writing its result. */
  readonly graceMs: number;
  /** Our tool is idempotent, has the claimed descriptor, and the args still hash to the claimed argsHash. */
  readonly canRerun: boolean;
  readonly deliveryCount: number;
  /** The claim is this process's own and its run (or the writing of its result) is still going on. */
  readonly claimantRunsHere: boolean;
  /** When the server stored the claim (its own clock); undefined when it could not be read. */
  readonly claimStoredAtMs?: number;
  /** How long this process has seen the bus work without a fault (see BusSteadiness). */
  readonly busSteadyForMs: number;
  /** How long a claimant cut off by an outage gets, once the bus works again, to record its result. */
  readonly catchUpMs: number;
}

/**
 * The claim's deadline on the server's clock: the claimant wrote `ts` and `deadline` by its own
 * clock, which may run minutes off; the time it gave itself is that clock's difference, counted
 * from when the server stored the claim. Without the stored time, the deadline as written.
 */
export function claimDeadlineMs(started: ToolCallStarted, storedAtMs: number | undefined): number {
  const written = Date.parse(started.data.deadline);
  if (storedAtMs === undefined) return written;
  return storedAtMs + (written - Date.parse(started.ts));
}

export type Recovery =
  | { readonly kind: "done" }
  /** The claimant may still be running: look again at `untilMs`. */
  | { readonly kind: "wait"; readonly untilMs: number }
  | { readonly kind: "rerun"; readonly attempt: number }
  | { readonly kind: "unknown"; readonly reason: string };

/**
 * What to do with a call someone already claimed (invariant 6): nothing if it has a result; wait
 * while the claimant may be alive (its deadline and grace, and a catch-up once the bus is back
 * after an outage this process saw); then re-run an idempotent tool, or record that the outcome is
 * unknown — running anything else twice could do its effect twice.
 */
export function decideRecovery(f: RecoveryFacts): Recovery {
  if (f.hasResult) return { kind: "done" };
  const untilMs = claimDeadlineMs(f.started, f.claimStoredAtMs) + f.graceMs;
  if (f.nowMs < untilMs) return { kind: "wait", untilMs };
  // past the deadline, but the run is ours and alive: its result is on its way (an outage delayed it)
  if (f.claimantRunsHere) return { kind: "wait", untilMs: f.nowMs + f.graceMs };
  // the bus was down lately: the claimant was cut off too, and its result may be a retry away
  if (f.busSteadyForMs < f.catchUpMs) return { kind: "wait", untilMs: f.nowMs + (f.catchUpMs - f.busSteadyForMs) };
  // the re-run is at least the second attempt, whatever the delivery count says
  if (f.canRerun) return { kind: "rerun", attempt: Math.max(2, f.deliveryCount) };
  return {
    kind: "unknown",
    reason:
      `executor ${f.started.data.executorId} claimed the call at ${f.started.ts} and recorded no result by its deadline ` +
      `${f.started.data.deadline}; the tool is not idempotent, so it is not run again and may or may not have taken effect`,
  };
}
