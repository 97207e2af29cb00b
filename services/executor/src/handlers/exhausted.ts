import { appendEvent, readEvent, type StageContext } from "@warden/bus";
import { nextCallEvent, stampNow, type ApprovalGranted, type ToolPolicyChecked } from "@warden/contracts/events";
import { wardenError } from "@warden/contracts/errors";
import { resultRecorded } from "../call-history.js";
import type { ExecutorDeps } from "../executor-deps.js";

/**
 * When an authorised call's retries run out, it still gets a terminal event: outcome unknown if
 * it was claimed (it may have run), else a refusal saying the executor could not run it.
 */
export function handleExhausted(deps: ExecutorDeps) {
  return async (event: ToolPolicyChecked | ApprovalGranted, reason: string, sctx: StageContext): Promise<void> => {
    if (event.type === "ToolPolicyChecked" && event.data.decision !== "allow") return;
    const started = await readEvent(deps.bus, event.domain, event.callId, "ToolCallStarted");
    if (started !== undefined) {
      if (await resultRecorded(deps.bus, started)) return;
      sctx.log.error({ reason }, "gave up on a claimed call, recording outcome unknown");
      await appendEvent(
        deps.bus,
        nextCallEvent(started, "ToolCallOutcomeUnknown", {
          reason: `the executor gave up on the call after it was claimed (${reason}); it may or may not have taken effect`,
          startedEventId: started.eventId,
          executorId: deps.executorId,
        }, stampNow()),
      );
      return;
    }
    sctx.log.error({ reason }, "gave up on a call before claiming it");
    const error = wardenError("INTERNAL", `the executor could not run the call: ${reason}`);
    await appendEvent(deps.bus, nextCallEvent(event, "ToolCallRejected", { stage: "executor", error }, stampNow()));
  };
}
