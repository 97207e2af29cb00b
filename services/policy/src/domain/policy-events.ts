import { nextCallEvent, wardenError, type ToolArgsValidated, type ToolCallRejected, type ToolPolicyChecked, type EventStamp } from "@warden/contracts";
import { rejectionCode, type Verdict } from "./verdict.js";

export type Stamp = EventStamp;

export function policyCheckedEvent(
  validated: ToolArgsValidated,
  verdict: Verdict,
  policyVersion: string,
  stamp: Stamp,
): ToolPolicyChecked {
  const d = validated.data;
  const data = {
    version: d.version,
    descriptorHash: d.descriptorHash,
    grade: d.grade,
    argsHash: d.argsHash,
    args: d.args,
    decision: verdict.decision,
    reason: verdict.reason,
    ruleIds: [...verdict.ruleIds],
    policyVersion,
    ...(verdict.retryAfterMs === undefined ? {} : { retryAfterMs: verdict.retryAfterMs }),
  };
  return nextCallEvent(validated, "ToolPolicyChecked", data, stamp);
}

/** The rejection that closes a denied call; it answers the decision that denied it. */
export function policyRejectedEvent(checked: ToolPolicyChecked, stamp: Stamp): ToolCallRejected {
  const d = checked.data;
  const data: ToolCallRejected["data"] = {
    stage: "policy",
    error: wardenError(rejectionCode(d.ruleIds), d.reason, d.retryAfterMs === undefined ? undefined : { retryAfterMs: d.retryAfterMs }),
    ruleIds: [...d.ruleIds],
    policyVersion: d.policyVersion,
  };
  return nextCallEvent(checked, "ToolCallRejected", data, stamp);
}

/** The rejection when the stage gave up deciding (its retries ran out). */
export function policyFailedEvent(validated: ToolArgsValidated, reason: string, stamp: Stamp): ToolCallRejected {
  return nextCallEvent(validated, "ToolCallRejected", { stage: "policy", error: wardenError("INTERNAL", `the policy stage could not decide: ${reason}`) }, stamp);
}
