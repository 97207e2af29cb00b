import { readEvent, type StageContext, type StageOutcome } from "@warden/bus";
import { fail, ok, verifyGrantSignature, type ApprovalGranted, type ApprovalRequested } from "@warden/contracts";
import type { Authorisation } from "../authorisation.js";
import { checkGrant } from "../domain/check-grant.js";
import { executeCall } from "../execute-call.js";
import type { ExecutorDeps } from "../executor-deps.js";

/** `executor-granted-<domain>`: runs granted calls after re-checking the grant (invariant 5). */
export function handleApprovalGranted(deps: ExecutorDeps) {
  return async (grant: ApprovalGranted, sctx: StageContext): Promise<StageOutcome> => {
    let request: ApprovalRequested | undefined;
    const auth: Authorisation = {
      event: grant,
      bind: async () => {
        request ??= await readEvent(deps.bus, grant.domain, grant.callId, "ApprovalRequested");
        if (request === undefined) return fail("GRANT_INVALID", "the call has no ApprovalRequested to take the args from");
        const r = request.data;
        return ok({ args: r.args, argsHash: r.argsHash, version: grant.data.version, descriptorHash: grant.data.descriptorHash });
      },
      verify: async () => {
        const publicKey = await deps.approverKey(grant.data.keyId);
        const checked = checkGrant({ grant, request, publicKey, now: new Date(), verify: verifyGrantSignature });
        return checked.ok ? ok(undefined) : checked;
      },
    };
    return executeCall(deps, auth, sctx);
  };
}
