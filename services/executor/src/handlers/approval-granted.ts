import { readEvent, type StageContext, type StageOutcome } from "@warden/bus";
import { fail, ok, verifyGrantSignature, type ApprovalGranted, type ApprovalRequested, type ToolArgsValidated, type ToolPolicyChecked } from "@warden/contracts";
import type { Authorisation } from "../authorisation.js";
import { checkChain } from "../domain/check-chain.js";
import { checkApprovalOpen, checkGrant } from "../domain/check-grant.js";
import { executeCall } from "../execute-call.js";
import type { ExecutorDeps } from "../executor-deps.js";

interface GrantChain {
  readonly request: ApprovalRequested | undefined;
  readonly checked: ToolPolicyChecked | undefined;
  readonly validated: ToolArgsValidated | undefined;
}

/**
 * `executor-granted-<domain>`: runs granted calls after re-checking the grant (invariant 5): the
 * chain validated args -> policy decision -> approval request it answers, no denial or expiry of
 * the approval on the stream, and a signature by an approver key pinned at provisioning.
 */
export function handleApprovalGranted(deps: ExecutorDeps) {
  return async (grant: ApprovalGranted, sctx: StageContext): Promise<StageOutcome> => {
    let chain: Promise<GrantChain> | undefined;
    const readChain = () =>
      (chain ??= (async () => {
        const [request, checked, validated] = await Promise.all([
          readEvent(deps.bus, grant.domain, grant.callId, "ApprovalRequested"),
          readEvent(deps.bus, grant.domain, grant.callId, "ToolPolicyChecked"),
          readEvent(deps.bus, grant.domain, grant.callId, "ToolArgsValidated"),
        ]);
        return { request, checked, validated };
      })());
    const auth: Authorisation = {
      event: grant,
      bind: async () => {
        const { request, checked, validated } = await readChain();
        if (request === undefined) return fail("GRANT_INVALID", "the call has no ApprovalRequested to take the args from");
        const linked = checkChain({ validated, checked, request });
        if (!linked.ok) return linked;
        const r = request.data;
        // an edited grant runs the args the approver granted (verify() checks their hash and signature)
        const edit = grant.data.edit;
        return ok({
          args: edit === undefined ? r.args : edit.args,
          argsHash: edit === undefined ? r.argsHash : grant.data.argsHash,
          version: grant.data.version,
          descriptorHash: grant.data.descriptorHash,
        });
      },
      verify: async () => {
        const bySession = grant.data.bySession;
        const [denied, expired, sessionRevoked] = await Promise.all([
          readEvent(deps.bus, grant.domain, grant.callId, "ApprovalDenied"),
          readEvent(deps.bus, grant.domain, grant.callId, "ApprovalExpired"),
          // a session grant revoked after it granted this call, before the call ran
          bySession === undefined ? undefined : readEvent(deps.bus, grant.domain, bySession.grantId, "SessionGrantRevoked"),
        ]);
        const open = checkApprovalOpen({ denied, expired, sessionRevoked });
        if (!open.ok) return open;
        const { request } = await readChain();
        const keys = deps.approverKeys;
        const checkedGrant = checkGrant({ grant, request, publicKey: keys.get(grant.data.keyId), pinnedKeys: keys.size, now: new Date(), verify: verifyGrantSignature });
        return checkedGrant.ok ? ok(undefined) : checkedGrant;
      },
    };
    return executeCall(deps, auth, sctx);
  };
}
