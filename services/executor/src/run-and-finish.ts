import { ACK, appendEvent, type StageContext, type StageOutcome } from "@warden/bus";
import { OUTPUT_PREVIEW_BYTES, wardenError, type EventData, type ToolCallStarted, type WardenError } from "@warden/contracts";
import type { ExecutableTool, PreparedCall } from "./define-tool.js";
import { shapeOutput } from "./domain/shape-output.js";
import type { ExecutorDeps } from "./executor-deps.js";
import { nextEvent } from "./next-event.js";
import { runWithTimeout, type HandlerResult } from "./run-with-timeout.js";

export interface ClaimedRun {
  readonly tool: ExecutableTool;
  readonly prepared: Extract<PreparedCall, { ok: true }>;
  /** The ToolCallStarted that holds the claim (ours, or a crashed claimant's on a re-run). */
  readonly claim: ToolCallStarted;
  readonly attempt: number;
}

type Recorded = Omit<EventData<"ToolCallFinished">, "durationMs" | "executorId" | "attempt">;

const WRITE_ATTEMPTS = 3;

/** Runs the claimed call and appends ToolCallFinished; a failing handler is a result, never a crash. */
export async function runAndFinish(deps: ExecutorDeps, run: ClaimedRun, sctx: StageContext): Promise<StageOutcome> {
  const { claim, tool } = run;
  const log = sctx.log.child({ tool: claim.tool, attempt: run.attempt });
  const t0 = performance.now();
  const result = await runWithTimeout(
    (signal) =>
      run.prepared.run({
        signal,
        callId: claim.callId,
        principal: claim.principal,
        mode: claim.mode,
        correlationId: claim.correlationId,
        attempt: run.attempt,
        log,
      }),
    tool.descriptor.timeoutMs,
  );
  const durationMs = Math.round((performance.now() - t0) * 1000) / 1000;
  if (!result.ok) log.info({ code: result.error.code, reason: result.error.message }, "tool failed");
  const recorded = await record(deps, claim.callId, result, tool);
  const finished = nextEvent(claim, "ToolCallFinished", claim.eventId, {
    ...recorded,
    durationMs,
    executorId: deps.executorId,
    attempt: run.attempt,
  });
  const appended = await withRetries(() => appendEvent(deps.bus, finished));
  if (appended.status === "already_written" && appended.existing?.eventId !== finished.eventId) {
    log.warn({ existingEventId: appended.existing?.eventId }, "a result was already recorded for this call");
  }
  return ACK;
}

async function record(deps: ExecutorDeps, callId: string, result: HandlerResult, tool: ExecutableTool): Promise<Recorded> {
  const none = { truncated: false, artifacts: [] };
  if (!result.ok) return { ok: false, error: mayHaveActed(result.error, tool), outputBytes: 0, ...none };
  const shaped = shapeOutput(result.value, tool.descriptor.maxOutputBytes, OUTPUT_PREVIEW_BYTES);
  if (shaped.kind === "error") return { ok: false, error: shaped.error, outputBytes: shaped.bytes, ...none };
  if (shaped.kind === "inline") return { ok: true, output: shaped.output, outputBytes: shaped.bytes, ...none };
  try {
    const ref = await withRetries(() => deps.artifacts.putOutput(callId, shaped.json, shaped.sha256));
    return { ok: true, output: shaped.preview, truncated: true, outputBytes: shaped.bytes, artifacts: [ref] };
  } catch (err) {
    // the tool did run: say so rather than re-running it for an object-store fault
    const error = wardenError("INTERNAL", `the tool ran but its ${shaped.bytes}-byte output could not be stored: ${(err as Error).message}`);
    return { ok: false, error: { ...error, retryable: tool.descriptor.idempotent }, outputBytes: shaped.bytes, ...none };
  }
}

/**
 * A timed-out handler may still act after its abort: retrying is only safe for an idempotent
 * tool, so a caller (or a model reading toModelMessage) is not told to try a write again.
 */
function mayHaveActed(error: WardenError, tool: ExecutableTool): WardenError {
  if (error.code !== "TIMEOUT" || tool.descriptor.idempotent) return error;
  return { ...error, retryable: false, message: `${error.message}; it may still have taken effect, check before calling again` };
}

async function withRetries<T>(fn: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (attempt >= WRITE_ATTEMPTS) throw err;
      await new Promise((r) => setTimeout(r, 100 * attempt));
    }
  }
}
