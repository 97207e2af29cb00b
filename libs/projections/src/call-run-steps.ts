import { type EventOfType } from "@warden/contracts/events";
import { previewJson } from "@warden/contracts/json";
import type { CallModel } from "./call-model.js";
import { checkBinding } from "./call-checks.js";
import type { CallDraft, CallStep, StepContext, StepResult } from "./call-step.js";

/** A call model keeps a short preview of the output; the events keep the rest. */
export const OUTPUT_SUMMARY_BYTES = 512;
/** Clocks of the approver and the executor may differ this much before a late start is flagged. */
export const GRANT_CLOCK_SKEW_MS = 1_000;

type CallModelOutput = NonNullable<NonNullable<CallModel["result"]>["outputPreview"]>;

export const started: CallStep<"ToolCallStarted"> = (m, event, { before, flag }) => {
  const d = event.data;
  const by = d.authorizedBy;
  let named = false;
  if (before !== "approved") {
    flag("started_without_authorisation", `started while ${before}`);
    named = true;
  } else if (by.type === "ToolPolicyChecked" ? m.decision?.decision !== "allow" || m.decision.eventId !== by.eventId : m.approval?.grantEventId !== by.eventId) {
    flag("started_without_authorisation", `authorised by ${by.type} ${by.eventId}, which is not this call's ${by.type === "ToolPolicyChecked" ? "allow" : "grant"}`);
  }
  if (m.grade === "send" && (by.type !== "ApprovalGranted" || m.approval?.outcome !== "granted")) {
    flag("send_without_grant", `a send started on ${by.type} without a grant`);
  }
  // a run of edited args carries their hash, which the grant bound
  const edited = by.type === "ApprovalGranted" ? m.approval?.editedArgsHash : undefined;
  checkBinding(m, edited === undefined ? d : { ...d, argsHash: d.argsHash === edited ? (m.argsHash ?? d.argsHash) : d.argsHash }, "the claim", flag);
  const grantExpiry = m.approval?.grantExpiresAt;
  if (by.type === "ApprovalGranted" && grantExpiry !== undefined && Date.parse(event.ts) > Date.parse(grantExpiry) + GRANT_CLOCK_SKEW_MS) {
    flag("grant_expired_at_start", `started at ${event.ts}, the grant expired at ${grantExpiry}`);
  }
  m.run = { executorId: d.executorId, startedAt: event.ts, deadline: d.deadline, argsHash: d.argsHash, authorizedBy: { ...by } };
  // it ran, whatever came before
  m.status = "running";
  return { named };
};

/** A run's outcome: a result, or the executor's word that it cannot know one. */
export function ended(m: CallDraft, event: EventOfType<"ToolCallFinished" | "ToolCallOutcomeUnknown">, { flag }: StepContext): StepResult {
  if (m.result !== undefined || m.outcomeUnknown !== undefined) {
    flag("finished_twice", `${event.type} after ${m.result !== undefined ? "ToolCallFinished" : "ToolCallOutcomeUnknown"}`);
    return { named: true };
  }
  let named = false;
  if (m.run === undefined) {
    flag("finished_without_start", `${event.type} without a ToolCallStarted`);
    named = true;
  }
  if (event.type === "ToolCallFinished") {
    const d = event.data;
    if (d.truncated && d.artifacts.length === 0) flag("truncated_without_artifact", `output of ${d.outputBytes} bytes truncated with no artifact`);
    m.result = {
      ok: d.ok,
      finishedAt: event.ts,
      durationMs: d.durationMs,
      outputBytes: d.outputBytes,
      truncated: d.truncated,
      ...(d.output === undefined ? {} : { outputPreview: previewJson(d.output, OUTPUT_SUMMARY_BYTES) as CallModelOutput }),
      artifacts: d.artifacts.map((a) => ({ id: a.id, sha256: a.sha256, bytes: a.bytes })),
      ...(d.error === undefined ? {} : { error: { code: d.error.code, message: d.error.message } }),
      attempt: d.attempt,
      executorId: d.executorId,
    };
    m.status = d.ok ? "succeeded" : "failed";
  } else {
    m.outcomeUnknown = { at: event.ts, reason: event.data.reason, executorId: event.data.executorId };
    m.status = "outcome_unknown";
  }
  return { named };
}

/** A run that ended after the call had its outcome: an annotation, never a second outcome. */
export const lateResult: CallStep<"ToolCallLateResult"> = (m, event) => {
  const d = event.data;
  m.lateResult = {
    at: event.ts,
    ok: d.ok,
    executorId: d.executorId,
    afterType: d.outcomeType,
    ...(d.error === undefined ? {} : { errorCode: d.error.code }),
  };
  return {};
};

/** The check of a run's output changes nothing of the call: its outcome (ToolCallFinished) says what it meant, the trace shows the check. */
export const resultValidated: CallStep<"ToolResultValidated"> = () => ({});
