import type { PendingApproval } from "@warden/contracts";
import { cut } from "../output.js";

const ARGS_CHARS = 2_000;

/** One approval as a person reads it before deciding: what, why, for whom, how risky, who decides. */
export function approvalCardText(a: PendingApproval): string {
  const flags = a.flags === undefined ? [] : (["destructive", "openWorld", "idempotent"] as const).filter((f) => a.flags![f]);
  const lines = [
    `approval ${a.approvalId}  call ${a.callId}`,
    `  tool      ${a.title} (${a.tool}), grade ${a.grade}${flags.length === 0 ? "" : `, ${flags.join(", ")}`}`,
    ...(a.description === undefined ? [] : [`  does      ${cut(a.description, 300)}`]),
    `  asked by  ${a.onBehalfOf ?? a.principal} (${a.principal}, mode ${a.mode})`,
    ...(a.intent === undefined
      ? ["  intent    (none given)"]
      : [
          `  goal      ${a.intent.goal}`,
          ...(a.intent.rationale === undefined ? [] : [`  why       ${cut(a.intent.rationale, 500)}`]),
          ...(a.intent.expectedEffect === undefined ? [] : [`  expects   ${cut(a.intent.expectedEffect, 500)}`]),
        ]),
    `  args      ${cut(a.args === undefined ? a.argsPreview : JSON.stringify(a.args), ARGS_CHARS)}`,
    `  argsHash  ${a.argsHash}`,
    ...(a.preview === undefined
      ? []
      : [a.preview.error === undefined ? `  preview   ${cut(JSON.stringify(a.preview.data ?? null), ARGS_CHARS)}  (the tool's dry run)` : `  preview   none: ${a.preview.error.code}: ${cut(a.preview.error.message, 300)}`]),
    `  policy    ${a.reason}${a.ruleIds === undefined ? "" : ` [${a.ruleIds.join(", ")}${a.policyVersion === undefined ? "" : ` @ ${a.policyVersion}`}]`}`,
    ...(a.riskReasons === undefined || a.riskReasons.length === 0 ? [] : [`  risk      ${a.riskReasons.join("; ")}`]),
    `  expires   ${a.expiresAt}`,
    `  decides   ${decidersText(a)}`,
  ];
  return lines.join("\n");
}

function decidersText(a: PendingApproval): string {
  const who = a.deciders === undefined ? "a human approver" : a.deciders.length === 0 ? "nobody named in the policy document" : a.deciders.join(", ");
  const quorum = (a.quorum ?? 1) > 1 ? `; ${a.quorum} distinct approvers needed` : "";
  return `${a.approvers.requesterMayConfirm ? `the requester or ${who}` : who}${quorum}`;
}
