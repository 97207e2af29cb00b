import { ACK, readEvent, type StageContext, type StageOutcome } from "@warden/bus";
import { type ToolPolicyChecked } from "@warden/contracts/events";
import { fail, ok } from "@warden/contracts/errors";
import { argsHash } from "@warden/contracts/json";
import type { Authorisation } from "../authorisation.js";
import { checkChain } from "../domain/check-chain.js";
import { executeCall } from "../execute-call.js";
import type { ExecutorDeps } from "../executor-deps.js";

/**
 * `executor-allowed-<domain>`: runs calls the policy allowed; other decisions are not ours. The
 * decision must answer the call's ToolArgsValidated (same call, caused by it, same hashes).
 */
export function handleToolPolicyChecked(deps: ExecutorDeps) {
  return async (event: ToolPolicyChecked, sctx: StageContext): Promise<StageOutcome> => {
    if (event.data.decision !== "allow") return ACK;
    const d = event.data;
    const auth: Authorisation = {
      event,
      bind: async () => {
        const validated = await readEvent(deps.bus, event.domain, event.callId, "ToolArgsValidated");
        const linked = checkChain({ validated, checked: event });
        if (!linked.ok) return linked;
        return ok({ args: d.args, argsHash: d.argsHash, version: d.version, descriptorHash: d.descriptorHash, onBehalfOf: d.onBehalfOf ?? event.principal });
      },
      verify: async (b, tool) => {
        if (argsHash(b.args) !== b.argsHash) return fail("INVALID_ARGS", "the args do not hash to the argsHash the policy decided on");
        // invariant 4, held here too: a send never runs on a policy allow alone
        if (tool.descriptor.grade === "send") return fail("GRANT_INVALID", "a send tool runs only after a signed human grant");
        return ok(undefined);
      },
    };
    return executeCall(deps, auth, sctx);
  };
}
