import { answeringEnvelope, wardenError, type ToolArgsValidated, type ToolCallRejected, type ToolPolicyChecked } from "@warden/contracts";
import { rejectionCode, type Verdict } from "./verdict.js";

export interface Stamp {
  readonly eventId: string;
  readonly ts: string;
}

const answering = answeringEnvelope;

export function policyCheckedEvent(
  validated: ToolArgsValidated,
  verdict: Verdict,
  policyVersion: string,
  stamp: Stamp,
): ToolPolicyChecked {
  const d = validated.data;
  return {
    ...answering(validated, stamp),
    type: "ToolPolicyChecked",
    data: {
      version: d.version,
      descriptorHash: d.descriptorHash,
      grade: d.grade,
      argsHash: d.argsHash,
      args: d.args,
      decision: verdict.decision,
      reason: verdict.reason,
      ruleIds: [...verdict.ruleIds],
      policyVersion,
    },
  };
}

/** The rejection that closes a denied call; it answers the decision that denied it. */
export function policyRejectedEvent(checked: ToolPolicyChecked, stamp: Stamp): ToolCallRejected {
  const d = checked.data;
  return {
    ...answering(checked, stamp),
    type: "ToolCallRejected",
    data: {
      stage: "policy",
      error: wardenError(rejectionCode(d.ruleIds), d.reason),
      ruleIds: [...d.ruleIds],
      policyVersion: d.policyVersion,
    },
  };
}

/** The rejection when the stage gave up deciding (its retries ran out). */
export function policyFailedEvent(validated: ToolArgsValidated, reason: string, stamp: Stamp): ToolCallRejected {
  return {
    ...answering(validated, stamp),
    type: "ToolCallRejected",
    data: { stage: "policy", error: wardenError("INTERNAL", `the policy stage could not decide: ${reason}`) },
  };
}
