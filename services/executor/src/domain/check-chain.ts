import { type ApprovalRequested, type ToolArgsValidated, type ToolPolicyChecked } from "@warden/contracts/events";
import { fail, ok, type ErrorCode, type Outcome } from "@warden/contracts/errors";

/**
 * The code a broken authorisation chain is refused with. The executor already refuses an
 * authorisation that cannot stand (a send on a policy allow) as GRANT_INVALID; `details.check`
 * says which link failed.
 */
export const CHAIN_REFUSAL_CODE: ErrorCode = "GRANT_INVALID";

export interface ChainFacts {
  /** The call's ToolArgsValidated (written by the registry); undefined when not on the stream. */
  readonly validated: ToolArgsValidated | undefined;
  /** The ToolPolicyChecked the executor acts on, or (for a grant) the one on the call's stream. */
  readonly checked: ToolPolicyChecked | undefined;
  /** For a grant: the ApprovalRequested it answers, which must answer `checked` in turn. */
  readonly request?: ApprovalRequested;
}

/**
 * Checks that the policy decision an executor acts on answers this call's validated args: the
 * same call and tool, caused by the ToolArgsValidated, bound to the same argsHash, descriptorHash
 * and version. For a grant, its request must answer that decision the same way, and a denial
 * cannot be turned into a run by any grant.
 */
export function checkChain(f: ChainFacts): Outcome<void> {
  const { validated: v, checked: c, request: r } = f;
  if (v === undefined) return broken("validation-missing", "the call has no ToolArgsValidated on the stream");
  if (c === undefined) return broken("policy-missing", "the call has no ToolPolicyChecked on the stream");
  if (c.callId !== v.callId || c.domain !== v.domain || c.tool !== v.tool) {
    return broken("policy-call", `the policy decision is for ${c.tool} call ${c.callId}, the validated call is ${v.tool} call ${v.callId}`);
  }
  if (c.causationId !== v.eventId) {
    return broken("policy-cause", `the policy decision answers event ${String(c.causationId)}, not the call's ToolArgsValidated ${v.eventId}`);
  }
  if (c.data.argsHash !== v.data.argsHash) return broken("policy-args", "the policy decided on another argsHash than the registry validated");
  if (c.data.descriptorHash !== v.data.descriptorHash || c.data.version !== v.data.version) {
    return broken("policy-descriptor", "the policy decided on another descriptor (hash or version) than the registry validated");
  }
  if (r === undefined) return ok(undefined);
  if (c.data.decision === "deny") return broken("policy-denied", "the policy denied this call; no grant can make it run");
  if (r.callId !== c.callId || r.causationId !== c.eventId) {
    return broken("request-cause", `the approval request answers event ${String(r.causationId)}, not the call's ToolPolicyChecked ${c.eventId}`);
  }
  if (r.data.argsHash !== c.data.argsHash || r.data.descriptorHash !== c.data.descriptorHash || r.data.version !== c.data.version) {
    return broken("request-binding", "the approval request is bound to other args or another descriptor than the policy decided on");
  }
  return ok(undefined);
}

function broken(check: string, reason: string): Outcome<never> {
  return fail(CHAIN_REFUSAL_CODE, `the authorisation does not answer this call's validated args: ${reason}`, { check });
}
