import { nextCallEvent, type ToolArgsValidated, type ToolCallRejected, type ToolPolicyChecked, type EventStamp } from "@warden/contracts/events";
import { wardenError } from "@warden/contracts/errors";
import { type JsonValue } from "@warden/contracts/json";
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
    ...(verdict.shadow === undefined ? {} : { shadow: verdict.shadow }),
    ...(verdict.reservations === undefined || verdict.reservations.length === 0 ? {} : { reservations: [...verdict.reservations] }),
    ...(verdict.exceeded === undefined ? {} : { exceeded: verdict.exceeded }),
    ...(verdict.onBehalfOf === undefined || verdict.decision === "deny" ? {} : { onBehalfOf: verdict.onBehalfOf }),
    ...(verdict.history === undefined || verdict.history.length === 0 ? {} : { history: [...verdict.history] }),
    ...(verdict.historyHolds === undefined || verdict.historyHolds.length === 0 || verdict.decision === "deny" ? {} : { historyHolds: [...verdict.historyHolds] }),
    ...(verdict.resultLabels === undefined || verdict.resultLabels.length === 0 ? {} : { resultLabels: [...verdict.resultLabels] }),
    ...(verdict.labelRun === undefined ? {} : { labelRun: verdict.labelRun }),
    ...(verdict.runLabels === undefined ? {} : { runLabels: [...verdict.runLabels] }),
  };
  return nextCallEvent(validated, "ToolPolicyChecked", data, stamp);
}

/** The rejection that closes a denied call; it answers the decision that denied it. */
export function policyRejectedEvent(checked: ToolPolicyChecked, stamp: Stamp): ToolCallRejected {
  const d = checked.data;
  const data: ToolCallRejected["data"] = {
    stage: "policy",
    error: wardenError(rejectionCode(d.ruleIds), d.reason, rejectionDetails(d)),
    ruleIds: [...d.ruleIds],
    policyVersion: d.policyVersion,
  };
  return nextCallEvent(checked, "ToolCallRejected", data, stamp);
}

/**
 * What a caller can act on: when to ask again (a rate limit), or which ledger is used up, what is
 * left of it and when it resets (`retryAfterMs` until then).
 */
function rejectionDetails(d: ToolPolicyChecked["data"]): Record<string, JsonValue> | undefined {
  if (d.exceeded !== undefined) {
    const e = d.exceeded;
    const retryAfterMs = Math.max(0, Date.parse(e.resetsAt) - Date.now());
    return { ledger: e.ledger, holder: e.holder, period: e.period, left: { ...e.left }, limit: { ...e.limit }, needed: { ...e.needed }, resetsAt: e.resetsAt, retryAfterMs };
  }
  return d.retryAfterMs === undefined ? undefined : { retryAfterMs: d.retryAfterMs };
}

/** The rejection when the stage gave up deciding (its retries ran out). */
export function policyFailedEvent(validated: ToolArgsValidated, reason: string, stamp: Stamp): ToolCallRejected {
  return nextCallEvent(validated, "ToolCallRejected", { stage: "policy", error: wardenError("INTERNAL", `the policy stage could not decide: ${reason}`) }, stamp);
}
