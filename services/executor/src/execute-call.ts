import { ACK, appendEvent, decodeJson, getStoredMessage, readEvent, readOutcome, type Bus, type StageContext, type StageOutcome } from "@warden/bus";
import { nextCallEvent, stampNow, type ToolCallStarted } from "@warden/contracts/events";
import { callEventSubject, STREAM_CALLS } from "@warden/contracts/subjects";
import { wardenError, type WardenError } from "@warden/contracts/errors";
import { argsHash } from "@warden/contracts/json";
import type { Authorisation } from "./authorisation.js";
import type { ExecutableTool } from "./define-tool.js";
import { decideRecovery } from "./domain/decide-recovery.js";
import type { ExecutorDeps } from "./executor-deps.js";
import { resultRecorded } from "./call-history.js";
import { runAndFinish } from "./run-and-finish.js";

const RESULT_POLL_MS = 200;

/**
 * Runs an authorised call at most once: re-check, claim with ToolCallStarted, run, record the
 * result. A claim someone else holds is recovered per invariant 6.
 */
export async function executeCall(deps: ExecutorDeps, auth: Authorisation, sctx: StageContext): Promise<StageOutcome> {
  const { event } = auth;
  // A redelivery, or an old event replayed to a recreated consumer, may meet a call that already
  // ran or was refused: its history decides, not checks that may have changed since (grant expiry).
  if (sctx.possibleReplay) {
    // only an executor acts on an allow or a grant, so its outcome slot is the only place a refusal can be
    const [prior, outcome] = await Promise.all([
      readEvent(deps.bus, event.domain, event.callId, "ToolCallStarted"),
      readOutcome(deps.bus, event.domain, event.callId),
    ]);
    if (prior !== undefined) return recover(deps, auth, prior, sctx);
    if (outcome !== undefined) return ACK;
  }
  const bound = await auth.bind();
  if (!bound.ok) return reject(deps, auth, bound.error, sctx);
  const b = bound.value;
  const tool = deps.tools.get(event.tool);
  if (tool === undefined || tool.descriptor.version !== b.version || tool.descriptorHash !== b.descriptorHash) {
    const have = tool === undefined ? "no such tool" : `${tool.descriptor.version} (${tool.descriptorHash})`;
    const error = wardenError(
      "DESCRIPTOR_CHANGED",
      `the call is bound to ${event.tool}@${b.version} (${b.descriptorHash}); this executor has ${have}`,
    );
    return reject(deps, auth, error, sctx);
  }
  const verified = await auth.verify(b, tool);
  if (!verified.ok) return reject(deps, auth, verified.error, sctx);
  const prepared = tool.prepare(b.args);
  if (!prepared.ok) return reject(deps, auth, wardenError("INVALID_ARGS", prepared.message), sctx);

  const started = nextCallEvent(event, "ToolCallStarted", {
    executorId: deps.executorId,
    version: b.version,
    descriptorHash: b.descriptorHash,
    argsHash: b.argsHash,
    authorizedBy: { type: event.type, eventId: event.eventId },
    deadline: new Date(Date.now() + tool.descriptor.timeoutMs).toISOString(),
  }, stampNow());
  const claim = await appendEvent(deps.bus, started);
  if (claim.status === "written" || claim.existing?.eventId === started.eventId) {
    return runAndFinish(deps, { tool, prepared, claim: started, attempt: 1, args: b.args, onBehalfOf: b.onBehalfOf }, sctx);
  }
  if (claim.existing === undefined) return { kind: "retry", reason: "the call is claimed but its ToolCallStarted could not be read" };
  // cancelled before we claimed it: the cancel holds the claim slot, so the call never runs
  if (claim.existing.type === "ToolCallCancelled") {
    sctx.log.info({ by: claim.existing.data.by }, "call cancelled before it started, not run");
    return ACK;
  }
  if (claim.existing.type !== "ToolCallStarted") return { kind: "retry", reason: "unexpected event in the claim slot" };
  return recover(deps, auth, claim.existing, sctx);
}

async function recover(deps: ExecutorDeps, auth: Authorisation, prior: ToolCallStarted, sctx: StageContext): Promise<StageOutcome> {
  const log = sctx.log.child({ startedEventId: prior.eventId, claimant: prior.data.executorId });
  // a claimant whose clock runs ahead would otherwise be waited for that much past its deadline
  const claimStoredAtMs = await claimStoredAt(deps.bus, prior);
  for (;;) {
    const hasResult = await resultRecorded(deps.bus, prior).catch((err: unknown) => {
      deps.busSteadiness.noteFault();
      throw err;
    });
    const tool = deps.tools.get(prior.tool);
    const rerunnable = hasResult ? undefined : await rerunnableCall(auth, prior, tool);
    const decision = decideRecovery({
      started: prior,
      hasResult,
      // on the server's timeline, as the claim's deadline is (see claimStoredAt)
      nowMs: deps.serverClock.nowMs(),
      graceMs: deps.claimGraceMs,
      canRerun: rerunnable !== undefined,
      deliveryCount: sctx.deliveryCount,
      claimantRunsHere: prior.data.executorId === deps.executorId && deps.runningCalls.has(prior.callId),
      busSteadyForMs: deps.busSteadiness.steadyForMs(),
      catchUpMs: deps.claimCatchUpMs,
      ...(claimStoredAtMs === undefined ? {} : { claimStoredAtMs }),
    });
    switch (decision.kind) {
      case "done":
        return ACK;
      case "wait":
        log.debug({ untilMs: decision.untilMs }, "call claimed elsewhere, waiting for its result or deadline");
        // look again soon: the claimant usually finishes long before its deadline
        // untilMs is the server's time: slept as a duration on this clock
        if (!(await sleepUntil(Date.now() + Math.min(decision.untilMs - deps.serverClock.nowMs(), RESULT_POLL_MS), deps.stopping))) {
          return { kind: "retry", reason: "executor stopping" };
        }
        continue;
      case "rerun":
        if (rerunnable === undefined) throw new Error("bug: re-run decided without a re-runnable call");
        log.warn({ attempt: decision.attempt }, "re-running an idempotent call whose claimant left no result");
        return runAndFinish(deps, { ...rerunnable, claim: prior, attempt: decision.attempt }, sctx);
      case "unknown": {
        log.warn("claimant left no result, recording outcome unknown");
        await appendEvent(
          deps.bus,
          nextCallEvent(prior, "ToolCallOutcomeUnknown", {
            reason: decision.reason,
            startedEventId: prior.eventId,
            executorId: deps.executorId,
          }, stampNow()),
        );
        return ACK;
      }
    }
  }
}

/** The tool and bound args for a re-run, when the claimed call is one we may safely run again. */
async function rerunnableCall(auth: Authorisation, prior: ToolCallStarted, tool: ExecutableTool | undefined) {
  if (tool === undefined || !tool.descriptor.idempotent || tool.descriptorHash !== prior.data.descriptorHash) return undefined;
  const bound = await auth.bind();
  if (!bound.ok || argsHash(bound.value.args) !== prior.data.argsHash) return undefined;
  // a re-run is a run: the grant (signature, expiry, binding) is checked again, as before the first
  if (!(await auth.verify(bound.value, tool)).ok) return undefined;
  const prepared = tool.prepare(bound.value.args);
  return prepared.ok ? { tool, prepared, args: bound.value.args, onBehalfOf: bound.value.onBehalfOf } : undefined;
}

async function reject(deps: ExecutorDeps, auth: Authorisation, error: WardenError, sctx: StageContext): Promise<StageOutcome> {
  // never refuse a call that is already claimed: that claim's outcome is the call's outcome
  const prior = await readEvent(deps.bus, auth.event.domain, auth.event.callId, "ToolCallStarted");
  if (prior !== undefined) return recover(deps, auth, prior, sctx);
  sctx.log.warn({ code: error.code, reason: error.message }, "call refused before running");
  await appendEvent(deps.bus, nextCallEvent(auth.event, "ToolCallRejected", { stage: "executor", error }, stampNow()));
  return ACK;
}

/** Resolves true at `untilMs`, or false as soon as `signal` aborts. */
function sleepUntil(untilMs: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve(true);
    }, Math.max(0, untilMs - Date.now()));
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/** When the server stored this claim, or undefined when the slot holds another event or cannot be read. */
async function claimStoredAt(bus: Bus, claim: ToolCallStarted): Promise<number | undefined> {
  const msg = await getStoredMessage(bus, STREAM_CALLS, { last_by_subj: callEventSubject(claim.domain, claim.callId, "ToolCallStarted") }).catch(() => null);
  if (msg === null) return undefined;
  const stored = decodeJson(msg.data);
  const sameClaim = stored.ok && typeof stored.value === "object" && stored.value !== null && (stored.value as { eventId?: unknown }).eventId === claim.eventId;
  return sameClaim ? msg.time.getTime() : undefined;
}
