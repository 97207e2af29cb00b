import { readEvent, type StageContext, type StageOutcome } from "@warden/bus";
import { type ApprovalGranted, type ApprovalRequested, type ToolArgsValidated, type ToolPolicyChecked } from "@warden/contracts/events";
import { fail, ok, type Outcome } from "@warden/contracts/errors";
import { levelOf } from "@warden/contracts/descriptor";
import { verifyGrantSignature } from "@warden/contracts/approval";
import type { Authorisation, Binding } from "../authorisation.js";
import type { ExecutableTool } from "../define-tool.js";
import { checkChain } from "../domain/check-chain.js";
import { checkApprovalOpen, checkGrant } from "../domain/check-grant.js";
import { executeCall } from "../execute-call.js";
import type { ExecutorDeps } from "../executor-deps.js";
import { runPreview } from "../run-preview.js";

interface GrantChain {
  readonly request: ApprovalRequested | undefined;
  readonly checked: ToolPolicyChecked | undefined;
  readonly validated: ToolArgsValidated | undefined;
}

/**
 * `executor-granted-<domain>`: runs granted calls after re-checking the grant (invariant 5): the
 * chain validated args -> policy decision -> approval request it answers, no denial or expiry of
 * the approval on the stream, and a signature by an approver key pinned at provisioning. An L5
 * call is never run on a session's grant, and one whose grant binds a dry run's hash runs only if
 * the dry run, run again here, still says the same.
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
          // the policy stage, which checked the delegation chain, says whom a delegated call runs for
          onBehalfOf: checked?.data.onBehalfOf ?? grant.principal,
        });
      },
      verify: async (binding, tool) => {
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
        if (!checkedGrant.ok) return checkedGrant;
        return checkL5(binding, tool);
      },
    };
    return executeCall(deps, auth, sctx);

    /** The L5 second checks the executor can make itself: no session grant, and the dry run the grant binds unchanged. */
    async function checkL5(binding: Binding, tool: ExecutableTool): Promise<Outcome<void>> {
      if (grant.data.bySession !== undefined && levelOf(tool.descriptor) === "L5") {
        return fail("GRANT_INVALID", `${tool.descriptor.name} is L5 (destructive or admin): a session grant never covers it, each call needs its own decision`);
      }
      const bound = grant.data.previewHash;
      if (bound === undefined) return ok(undefined);
      const again = await runPreview(tool, binding.args, { callId: grant.callId, principal: grant.principal, onBehalfOf: binding.onBehalfOf, log: sctx.log.child({ preview: true }), secrets: deps.secrets });
      if (!again.ok) {
        return fail("PREVIEW_CHANGED", `the dry run the approval bound could not be run again before the call (${again.error.code}: ${again.error.message}); it did not run`, { approvedHash: bound });
      }
      if (again.value.hash !== bound) {
        return fail("PREVIEW_CHANGED", "the dry run now says something else than the people approving saw: what the call would change has changed since; it did not run (ask again to approve what it does now)", {
          approvedHash: bound,
          currentHash: again.value.hash,
        });
      }
      return ok(undefined);
    }
  };
}
