import { LEVEL_NAMES } from "@warden/contracts/descriptor";
import { type PendingApproval } from "@warden/contracts/approval";
import { cut } from "../output.js";

const ARGS_CHARS = 2_000;

/** One approval as a person reads it before deciding: what, why, for whom, how risky, who decides. */
export function approvalCardText(a: PendingApproval): string {
  const flags = a.flags === undefined ? [] : (["destructive", "openWorld", "idempotent"] as const).filter((f) => a.flags![f]);
  const lines = [
    `approval ${a.approvalId}  call ${a.callId}`,
    ...(a.summary === undefined ? [] : [`  summary   ${a.summary}`]),
    `  tool      ${a.title} (${a.tool}), grade ${a.grade}${flags.length === 0 ? "" : `, ${flags.join(", ")}`}`,
    ...(a.level === undefined && a.actionType === undefined ? [] : [`  level     ${levelText(a)}`]),
    ...(a.description === undefined ? [] : [`  does      ${cut(a.description, 300)}`]),
    `  asked by  ${a.onBehalfOf ?? a.principal} (${a.principal}, mode ${a.mode})`,
    ...(a.actsAs === undefined ? [] : [`  acts as   ${actsAsText(a)}`]),
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
      : [
          a.preview.error === undefined
            ? `  preview   ${cut(JSON.stringify(a.preview.data ?? null), ARGS_CHARS)}  (the tool's dry run${previewBinding(a)})`
            : `  preview   none: ${a.preview.error.code}: ${cut(a.preview.error.message, 300)}`,
        ]),
    `  policy    ${a.reason}${a.ruleIds === undefined ? "" : ` [${a.ruleIds.join(", ")}${a.policyVersion === undefined ? "" : ` @ ${a.policyVersion}`}]`}`,
    ...(a.riskReasons === undefined || a.riskReasons.length === 0 ? [] : [`  risk      ${a.riskReasons.join("; ")}`]),
    `  expires   ${a.expiresAt}`,
    `  decides   ${decidersText(a)}`,
    ...(a.sessionGrant === undefined ? [] : [`  session   ${a.sessionGrant.allowed ? "may be approved for the session (warden approve --session DURATION)" : `not for the session: ${a.sessionGrant.why ?? "refused"}`}`]),
  ];
  return lines.join("\n");
}

/** Whose credentials the tool would use: those of the top of the chain (whom the call runs for), or the service's. */
function actsAsText(a: PendingApproval): string {
  if (a.actsAs === "service") return "the service (its executor's own credentials)";
  const top = a.chain?.[0]?.principal ?? a.principal;
  return `${top}, with ${top}'s own credentials`;
}

function decidersText(a: PendingApproval): string {
  const who = a.deciders === undefined ? "a human approver" : a.deciders.length === 0 ? "nobody named in the policy document" : a.deciders.join(", ");
  const n = a.quorum ?? 1;
  // one approver by default says nothing; any other count says which entry asked for it
  const rule = a.quorumRule === undefined || a.quorumRule.id === "default.quorum" ? "" : ` [${a.quorumRule.id}: ${cut(a.quorumRule.reason, 200)}]`;
  const quorum = n > 1 ? `; ${n} distinct approvers needed${rule}` : rule === "" ? "" : `; 1 approver${rule}`;
  // the requester's own confirmation never counts towards a quorum
  return `${a.approvers.requesterMayConfirm && n === 1 ? `the requester or ${who}` : who}${quorum}`;
}

/** "L5 destructive_or_admin, action delete": the level by its name, and the action type when declared. */
function levelText(a: PendingApproval): string {
  const level = a.level === undefined ? [] : [`${a.level} ${LEVEL_NAMES[a.level]}`];
  const action = a.actionType === undefined ? [] : [`action ${a.actionType}`];
  return [...level, ...action].join(", ");
}

/** An L5 grant binds the dry run's hash: the executor runs the dry run again before the call. */
function previewBinding(a: PendingApproval): string {
  if (a.preview?.hash === undefined || a.level !== "L5") return "";
  return `; a grant binds ${a.preview.hash.slice(0, 19)}…, checked again before it runs`;
}
