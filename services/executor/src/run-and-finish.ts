import { SpanStatusCode, trace } from "@opentelemetry/api";
import { ACK, appendEvent, callAttributes, lazyChild, readOutcome, WARDEN_TRACER, type Logger, type StageContext, type StageOutcome } from "@warden/bus";
import { nextCallEvent, stampNow, tracingEnabled, type CredentialUse, type EffectsObserved, type EventData, type PersonalDataCounts, type ToolCallFinished, type ToolCallStarted } from "@warden/contracts/events";
import { wardenError, type WardenError } from "@warden/contracts/errors";
import { compensationArgs, redactsPersonalData, type Compensation } from "@warden/contracts/descriptor";
import { type JsonValue } from "@warden/contracts/json";
import { preCallRefusal, runPostCall } from "./call-hooks.js";
import type { ExecutableTool, PreparedCall, RecordedResult } from "./define-tool.js";
import { cleanResult } from "./domain/redact-result.js";
import type { ExecutorDeps } from "./executor-deps.js";
import { recordResult } from "./record-result.js";
import { shapeAndCheck, type CheckedOutput, type Validation } from "./result-checks.js";
import type { ToolContext } from "./tool-context.js";
import { EffectsLog } from "./tool-effects.js";
import { runWithTimeout, type HandlerResult } from "./run-with-timeout.js";
import { CallSecrets } from "./tool-secrets.js";
import { withBackoff } from "./with-backoff.js";

export interface ClaimedRun {
  readonly tool: ExecutableTool;
  readonly prepared: Extract<PreparedCall, { ok: true }>;
  /** The ToolCallStarted that holds the claim (ours, or a crashed claimant's on a re-run). */
  readonly claim: ToolCallStarted;
  readonly attempt: number;
  /** The args the call is bound to (what the tool's compensation reads). */
  readonly args: JsonValue;
  /** The principal the call runs for (its Binding's). */
  readonly onBehalfOf: string;
}

type Recorded = Omit<EventData<"ToolCallFinished">, "durationMs" | "executorId" | "attempt">;

/** How long a known result is retried through an outage at least, past the claim if need be. */
const RESULT_WRITE_MIN_MS = 30_000;

/** How long the record of a result's checks is retried through an outage before it is given up. */
const VALIDATION_WRITE_MS = 2_000;

/** Below this much claim time left a first run is not started: it could not finish inside its claim. */
const MIN_RUN_MS = 50;

/** Runs the claimed call and appends ToolCallFinished; a failing handler is a result, never a crash. */
export async function runAndFinish(deps: ExecutorDeps, run: ClaimedRun, sctx: StageContext): Promise<StageOutcome> {
  // a redelivery of this call meanwhile must wait for this run, not declare its outcome unknown
  deps.runningCalls.add(run.claim.callId);
  try {
    return await runClaimed(deps, run, sctx);
  } finally {
    deps.runningCalls.delete(run.claim.callId);
  }
}

async function runClaimed(deps: ExecutorDeps, run: ClaimedRun, sctx: StageContext): Promise<StageOutcome> {
  const { claim, tool } = run;
  // made when the run or its tool logs a line, not for every call
  const log = lazyChild(sctx.log, () => ({ tool: claim.tool, attempt: run.attempt }));
  // a copy paused after claiming may resume after another copy ended the call: it must not run
  const outcome = await readOutcome(deps.bus, claim.domain, claim.callId);
  if (outcome !== undefined) {
    log.warn({ outcome: outcome.type, outcomeEventId: outcome.eventId }, "the call already has its outcome, not running it");
    return ACK;
  }
  // the first run has only its own claim's time: past the deadline, others may declare the outcome
  // unknown (or re-run an idempotent tool), so a late start would make a second outcome
  const budgetMs = run.attempt === 1 ? Math.min(tool.descriptor.timeoutMs, Date.parse(claim.data.deadline) - Date.now()) : tool.descriptor.timeoutMs;
  if (budgetMs < MIN_RUN_MS) {
    log.warn({ deadline: claim.data.deadline }, "the claim ran out before the tool started, not running it");
    const error = wardenError("CLAIM_EXPIRED", `the executor's claim ran out (deadline ${claim.data.deadline}) before the tool started; it did not run`);
    return finish(deps, claim, { ok: false, error, outputBytes: 0, truncated: false, artifacts: [] }, 0, run.attempt, sctx);
  }
  const secrets = new CallSecrets(deps.secrets, run.onBehalfOf);
  const effects = new EffectsLog();
  const ctx: Omit<ToolContext, "signal"> = {
    callId: claim.callId,
    principal: claim.principal,
    onBehalfOf: run.onBehalfOf,
    mode: claim.mode,
    correlationId: claim.correlationId,
    attempt: run.attempt,
    log,
    secrets,
    effects,
  };
  const t0 = performance.now();
  const refused = await preCallRefusal(run.prepared, ctx, budgetMs, () => secrets.redactor());
  if (refused !== undefined) {
    log.info({ reason: refused.message }, "preCall refused the call");
    return finish(deps, claim, { ok: false, error: refused, outputBytes: 0, truncated: false, artifacts: [], ...effectsOf(effects, secrets) }, elapsedMs(t0), run.attempt, sctx);
  }
  // the handler has what preCall left of the run's time
  const handlerMs = run.prepared.preCall === undefined ? budgetMs : Math.max(1, budgetMs - (performance.now() - t0));
  const runTool = () => runWithTimeout((signal) => run.prepared.run({ ...ctx, signal }), handlerMs);
  const raw = tracingEnabled() ? await inToolSpan(claim, run.attempt, runTool) : await runTool();
  const durationMs = elapsedMs(t0);
  // before anything records or logs it: the handler may have echoed a secret it asked for, and an
  // external read brings back other people's data, masked unless the tool says to keep it
  const { result, counts } = cleanResult(raw, secrets.redactor(), redactsPersonalData(tool.descriptor));
  if (!result.ok) log.info({ code: result.error.code, reason: result.error.message }, "tool failed");
  // verify has what is left of the run's time (a re-run has its whole timeout, as its handler had)
  const verifyMs = run.attempt === 1 ? Math.min(tool.descriptor.timeoutMs, Date.parse(claim.data.deadline) - Date.now()) : tool.descriptor.timeoutMs;
  const checked = result.ok ? await shapeAndCheck(tool, run.prepared, result.value, { ...ctx, signal: deps.stopping }, () => secrets.redactor(), verifyMs) : undefined;
  if (checked?.validation !== undefined) await recordValidation(deps, claim, run.attempt, checked.validation, log);
  const recorded = await record(deps, claim.callId, result, checked, tool, run.args, log);
  const acked = await finish(deps, claim, { ...recorded, ...effectsOf(effects, secrets), ...personalDataOf(counts) }, durationMs, run.attempt, sctx);
  await runPostCall(run.prepared, recordedResult(recorded), ctx, tool.descriptor.timeoutMs, log);
  return acked;
}

/**
 * What the run reported it touched (preCall, handler, verify), cleaned of its secrets, and whose
 * credentials it used (names only); each absent when there is nothing to say.
 */
function effectsOf(effects: EffectsLog, secrets: CallSecrets): { effectsObserved?: EffectsObserved; credentials?: CredentialUse[] } {
  const observed = effects.observed(secrets.redactor());
  const used = secrets.used();
  return { ...(observed === undefined ? {} : { effectsObserved: observed }), ...(used.length === 0 ? {} : { credentials: used }) };
}

function personalDataOf(counts: PersonalDataCounts): { personalDataRedacted?: PersonalDataCounts } {
  return Object.keys(counts).length === 0 ? {} : { personalDataRedacted: counts };
}

function elapsedMs(t0: number): number {
  return Math.round((performance.now() - t0) * 1000) / 1000;
}

/** The result as ToolCallFinished records it, as postCall sees it. */
function recordedResult(recorded: Recorded): RecordedResult {
  if (recorded.ok) return { ok: true, output: recorded.output ?? null, truncated: recorded.truncated };
  return { ok: false, error: recorded.error ?? wardenError("INTERNAL", "the call failed without an error") };
}

/**
 * ToolResultValidated, before the outcome: what the checks found. Kept through a short outage,
 * then given up (logged): the outcome, which carries the same error, matters more than its record.
 * One per call: a re-run after a crash that had recorded its check keeps that first record.
 */
async function recordValidation(deps: ExecutorDeps, claim: ToolCallStarted, attempt: number, validation: Validation, log: Logger): Promise<void> {
  const event = nextCallEvent(claim, "ToolResultValidated", { ...validation, executorId: deps.executorId, attempt }, stampNow());
  try {
    await withBackoff(() => appendEvent(deps.bus, event), { untilMs: Date.now() + VALIDATION_WRITE_MS });
  } catch (err) {
    log.warn({ err, ok: validation.ok }, "result check not recorded, the outcome still carries it");
  }
}

/**
 * The tool's run as span `tool <name>`, a child of the executor stage's span and active while the
 * handler runs (so the tool's own spans nest under it); it ends with the result's `warden.ok` and
 * error code. Called only when tracing is on.
 */
async function inToolSpan(claim: ToolCallStarted, attempt: number, runTool: () => Promise<HandlerResult>): Promise<HandlerResult> {
  return trace.getTracer(WARDEN_TRACER).startActiveSpan(`tool ${claim.tool}`, { attributes: { ...callAttributes(claim), "warden.attempt": attempt, "warden.executor_id": claim.data.executorId } }, async (span) => {
    try {
      const result = await runTool();
      span.setAttribute("warden.ok", result.ok);
      if (!result.ok) {
        span.setAttribute("warden.error_code", result.error.code);
        span.setStatus({ code: SpanStatusCode.ERROR, message: result.error.code });
      }
      return result;
    } finally {
      span.end();
    }
  });
}

async function finish(deps: ExecutorDeps, claim: ToolCallStarted, recorded: Recorded, durationMs: number, attempt: number, sctx: StageContext): Promise<StageOutcome> {
  const finished: ToolCallFinished = nextCallEvent(claim, "ToolCallFinished", {
    ...recorded,
    durationMs,
    executorId: deps.executorId,
    attempt,
  }, stampNow());
  // a known result is worth keeping through a server outage: at least as long as the claim lets
  // this copy be the one that records the outcome, and a while longer since the outcome slot keeps a
  // late write from becoming a second outcome (it is then recorded as a late result)
  const writeUntilMs = Math.max(Date.parse(claim.data.deadline) + deps.claimGraceMs, Date.now() + RESULT_WRITE_MIN_MS);
  await recordResult(deps, claim, finished, writeUntilMs, sctx.log);
  return ACK;
}

async function record(deps: ExecutorDeps, callId: string, result: HandlerResult, checked: CheckedOutput | undefined, tool: ExecutableTool, args: JsonValue, log: Logger): Promise<Recorded> {
  const none = { truncated: false, artifacts: [] };
  if (!result.ok) return { ok: false, error: mayHaveActed(result.error, tool), outputBytes: 0, ...none };
  if (checked === undefined) throw new Error("bug: an ok result reached the record unchecked");
  const shaped = checked.shaped;
  if (shaped.kind === "error") return { ok: false, error: shaped.error, outputBytes: shaped.bytes, ...none };
  const undo = undoOf(tool, args, shaped.kind === "inline" ? shaped.output : shaped.value, log);
  if (shaped.kind === "inline") return { ok: true, output: shaped.output, outputBytes: shaped.bytes, ...none, ...undo };
  try {
    const ref = await withBackoff(() => deps.artifacts.putOutput(callId, shaped.json, shaped.sha256), { untilMs: Date.now() + 2_000 });
    return { ok: true, output: shaped.preview, truncated: true, outputBytes: shaped.bytes, artifacts: [ref], ...undo };
  } catch (err) {
    // the tool did run: say so rather than re-running it for an object-store fault
    const error = wardenError("INTERNAL", `the tool ran but its ${shaped.bytes}-byte output could not be stored: ${(err as Error).message}`);
    return { ok: false, error: { ...error, retryable: tool.descriptor.idempotent }, outputBytes: shaped.bytes, ...none };
  }
}

/**
 * The undo of a successful call, built from its args and whole output by the tool's declared
 * compensation; none when the tool declares none or the output lacks what the undo needs.
 */
function undoOf(tool: ExecutableTool, args: JsonValue, output: JsonValue, log: Logger): { undo?: Compensation } {
  const c = tool.descriptor.compensation;
  if (c === undefined) return {};
  const built = compensationArgs(c, { args, output });
  if (built.ok) return { undo: { tool: c.tool, args: built.value } };
  log.warn({ reason: built.error.message }, "the call succeeded but its undo cannot be built: it cannot be undone");
  return {};
}

/**
 * A timed-out handler may still act after its abort: retrying is only safe for an idempotent
 * tool, so a caller (or a model reading toModelMessage) is not told to try a write again.
 */
export function mayHaveActed(error: WardenError, tool: ExecutableTool): WardenError {
  if (error.code !== "TIMEOUT" || tool.descriptor.idempotent) return error;
  return { ...error, retryable: false, message: `${error.message}; it may still have taken effect, check before calling again` };
}
