import { ACK, appendEvent, readEvent, readOutcome, type AppendResult, type Bus, type StageContext, type StageOutcome } from "@warden/bus";
import type { DescriptorCache } from "@warden/service-kit";
import { mayUseCallId, newId, type EventType, type ToolCallRequested, type WardenEvent } from "@warden/contracts/events";
import { type Outcome } from "@warden/contracts/errors";
import type { ArgsValidators } from "../domain/args-validator.js";
import { argsValidatedEvent, registryRejectedEvent } from "../domain/call-events.js";
import { checkCompensation } from "../domain/check-compensation.js";
import { validateCall } from "../domain/validate-call.js";

export interface ValidateStageDeps {
  readonly bus: Bus;
  readonly cache: DescriptorCache;
  readonly validators: ArgsValidators;
}

function settle(result: AppendResult, ev: WardenEvent): StageOutcome {
  if (result.status === "written" || result.ours) return ACK;
  return {
    kind: "poison",
    reason: `call ${ev.callId} already has a ${ev.type} answering another request (${result.existing?.causationId ?? "unreadable"}): a second request reused the callId`,
  };
}

/**
 * The other answer this stage could have written for the call. Found with our request as its
 * cause, it is an earlier delivery's answer (the tool changed since): that answer stands. Found
 * for another request, the callId was reused.
 */
async function otherAnswer(bus: Bus, req: ToolCallRequested, type: EventType): Promise<StageOutcome | undefined> {
  const prior = await readEvent(bus, req.domain, req.callId, type);
  if (prior === undefined) return undefined;
  if (prior.causationId === req.eventId) return ACK;
  return { kind: "poison", reason: `call ${req.callId} already has a ${type} answering another request: a second request reused the callId` };
}

/** ToolCallRequested → ToolArgsValidated, or ToolCallRejected (stage registry). */
export function handleToolCallRequested(deps: ValidateStageDeps) {
  const { bus, cache, validators } = deps;
  const lookup = {
    versionsOf: (name: string) => cache.versionsOf(name),
    checkArgs: validators.validate.bind(validators),
  };
  return async (req: ToolCallRequested, ctx: StageContext): Promise<StageOutcome> => {
    // an id derived for another principal (its idempotency key's, its undo's) is not this one's to
    // take: answered with nothing (a rejection would fill the call's slots too), so the owner's own
    // request still gets the call
    const requester = ctx.subject.principal ?? req.principal;
    if (!mayUseCallId(requester, req.callId)) {
      return { kind: "poison", reason: `call id ${req.callId} is derived for another principal (an idempotency key's or an undo's): ${requester}'s request is not answered` };
    }
    const validated = validateCall(req, ctx.subject.principal, lookup);
    const verdict = validated.ok && req.data.compensates !== undefined ? await undoVerdict(bus, req, validated) : validated;
    const now = new Date();
    if (verdict.ok) {
      // only a redelivery or a replay (a recreated durable) can have rejected this request already
      if (ctx.possibleReplay) {
        const other = await otherAnswer(bus, req, "ToolCallRejected");
        if (other) return other;
      }
      const ev = argsValidatedEvent(req, verdict.value, newId(), now);
      ctx.log.debug({ tool: ev.tool, version: ev.data.version }, "call validated");
      return settle(await appendEvent(bus, ev), ev);
    }
    // rejections are rare: check they do not contradict a validation already on the call
    const other = await otherAnswer(bus, req, "ToolArgsValidated");
    if (other) return other;
    // identity comes from the subject: a mismatch is answered in the name the server let through
    const principal = verdict.error.code === "PRINCIPAL_MISMATCH" ? ctx.subject.principal : undefined;
    const ev = registryRejectedEvent(req, verdict.error, newId(), now, principal);
    ctx.log.debug({ code: verdict.error.code, tool: req.tool }, "call rejected");
    return settle(await appendEvent(bus, ev), ev);
  };
}

/** A request that says it undoes a call: valid only as the undo that call recorded when it finished. */
async function undoVerdict<T extends { readonly tool: string }>(bus: Bus, req: ToolCallRequested, validated: Outcome<T> & { ok: true }): Promise<Outcome<T>> {
  const { callId, domain } = req.data.compensates!;
  const [original, outcome] = await Promise.all([readEvent(bus, domain, callId, "ToolArgsValidated"), readOutcome(bus, domain, callId)]);
  const checked = checkCompensation(req, validated.value.tool, { validated: original, outcome });
  return checked.ok ? validated : checked;
}
