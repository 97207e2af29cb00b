import { type ApprovalGranted, type ApprovalRequested, type ToolPolicyChecked } from "@warden/contracts/events";
import { type ActionType, type PermissionLevel } from "@warden/contracts/descriptor";
import { unmetConstraint, type PolicyDocument, type SessionGrantRequest, type SessionTerms } from "@warden/contracts/policy";
import { type JsonValue } from "@warden/contracts/json";
import { mayDecide, quorumOf } from "@warden/policy-engine";

/**
 * Why a person may not grant this approval "for the session", or undefined when they may: the
 * policy document names the grades (`sessionGrants.grades`) and the longest lifetime, an L5 call,
 * a model's send or one that needs a quorum is never granted that way, and the constraints must
 * hold for the args granted now.
 */
export function sessionGrantRefusal(doc: PolicyDocument, requested: ApprovalRequested, quorum: number, asked: SessionGrantRequest, grantedArgs: JsonValue): string | undefined {
  const { maxTtlSeconds } = doc.sessionGrants;
  const never = cardSessionRefusal(doc, requested, quorum);
  if (never !== undefined) return never;
  if (asked.ttlSeconds > maxTtlSeconds) return `a session grant lasts at most ${maxTtlSeconds} s here (sessionGrants.maxTtlSeconds), not ${asked.ttlSeconds}`;
  const unmet = unmetConstraint(asked.args ?? {}, grantedArgs);
  if (unmet !== undefined) return `the session's constraints do not hold for the args granted now: ${unmet}`;
  return undefined;
}

/**
 * Why this call can never be granted for the session, whatever is asked (its level, a model's
 * send, the document's grades, a quorum); undefined when it can. The pending list tells clients,
 * so they offer "approve for session" only where it would be accepted.
 */
export function cardSessionRefusal(doc: PolicyDocument, requested: ApprovalRequested, quorum: number): string | undefined {
  const { grades } = doc.sessionGrants;
  const grade = requested.data.grade;
  // whatever the document says: each destructive or admin call is looked at on its own
  if (requested.data.level === "L5") return L5_NO_SESSION;
  if (isModelSend(requested.mode, grade)) return MODEL_SEND_NO_SESSION;
  if (requested.data.level === undefined) return "the card does not say the tool's level (the registry did not describe it), so it cannot be granted for the session";
  if (!grades.includes(grade)) {
    return grades.length === 0
      ? "the policy document allows no session grants (sessionGrants.grades is empty)"
      : `the policy document allows session grants for ${grades.join(", ")} calls only, not ${grade}`;
  }
  if (quorum > 1) return `this call needs ${quorum} distinct approvers, so it cannot be granted for the session`;
  return undefined;
}

const L5_NO_SESSION = "an L5 (destructive_or_admin) call is never granted for the session: each one needs its own decision";
const MODEL_SEND_NO_SESSION = "a model's send is never granted for the session: a person confirms each one (default.send.llm)";

/** A send a model asked for (mode llm): it runs only on a person's decision about that one call. */
function isModelSend(mode: string, grade: string): boolean {
  return mode === "llm" && grade === "send";
}

export function sessionTermsOf(asked: SessionGrantRequest, now: Date, grantedArgs?: JsonValue, runsFor?: string): SessionTerms {
  const names = asked.closed === true && grantedArgs !== null && typeof grantedArgs === "object" && !Array.isArray(grantedArgs) ? Object.keys(grantedArgs).sort() : undefined;
  return {
    expiresAt: new Date(now.getTime() + asked.ttlSeconds * 1000).toISOString(),
    args: asked.args ?? {},
    ...(names === undefined ? {} : { argNames: names }),
    ...(runsFor === undefined ? {} : { onBehalfOf: runsFor }),
  };
}

/**
 * Why a session grant does not cover a call the policy sent for approval, or undefined when it
 * does: never a model's send; the same principal, on behalf of the same principal, mode, tool version and descriptor, unexpired, args that meet its
 * constraints, a policy document that still allows it (grade, no quorum), and a tool below L5
 * (`level`, of the registered descriptor: a session grant never covers an L5 call, even one made
 * before the rule existed).
 */
export function sessionMismatch(
  grant: ApprovalGranted & { readonly data: { readonly session: SessionTerms } },
  checked: ToolPolicyChecked,
  doc: PolicyDocument,
  now: Date,
  tool: { readonly level: PermissionLevel; readonly actionType?: ActionType | undefined } | undefined,
): string | undefined {
  const d = checked.data;
  const level = tool?.level;
  if (level === "L5") return "an L5 call is never covered by a session grant";
  if (isModelSend(checked.mode, d.grade)) return "a model's send is never covered by a session grant";
  if (level === undefined) return "the tool's level is not known (the registry does not describe this version)";
  if (grant.principal !== checked.principal) return "another principal";
  // a delegated call spends the credentials of the principal it runs for: only that one's grant covers it
  if ((grant.data.session.onBehalfOf ?? grant.principal) !== (d.onBehalfOf ?? checked.principal)) return "runs on behalf of another principal";
  if (grant.mode !== checked.mode) return "another mode";
  if (grant.tool !== checked.tool || grant.data.version !== d.version || grant.data.descriptorHash !== d.descriptorHash) return "another tool version";
  if (!(Date.parse(grant.data.session.expiresAt) > now.getTime())) return "expired";
  // a document that shortened session grants shortens the ones in force too
  if (!(Date.parse(grant.data.grantedAt) + doc.sessionGrants.maxTtlSeconds * 1000 > now.getTime())) return "older than the policy document's sessionGrants.maxTtlSeconds";
  if (!doc.sessionGrants.grades.includes(d.grade)) return `the policy document no longer allows session grants for ${d.grade}`;
  // the args count: a send over a threshold that needs two is not covered by a grant made under it
  if (quorumOf(doc, { tool: checked.tool, grade: d.grade, level, actionType: tool?.actionType, args: d.args }).approvers > 1) return "the call needs a quorum";
  return unmetConstraint(grant.data.session.args, d.args, grant.data.session.argNames);
}

/** Whether the person who made a session grant may still decide this approval (the document may have changed; the chain is this call's). */
export function sessionApproverMayDecide(doc: PolicyDocument, approver: string, requested: ApprovalRequested): boolean {
  return mayDecide(doc, approver, {
    grade: requested.data.grade,
    mode: requested.mode,
    requester: requested.principal,
    requesterMayConfirm: requested.data.approvers.requesterMayConfirm,
    chain: (requested.data.chain ?? []).map((l) => l.principal),
  }).ok;
}
