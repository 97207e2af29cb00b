import { ACK, appendEvent, decodeJson, readEvent, type Bus, type StageContext, type StageOutcome, type UndecodableMessage } from "@warden/bus";
import { messageHash, newId, type ToolCallRejected, type WardenEvent } from "@warden/contracts/events";
import { peekRequest, unreadableRejectedEvent, unreadableRequestError } from "../domain/unreadable-request.js";

/** The body as JSON if it is any (a request too deep or large for the stage may still name its tool). */
function bodyJson(message: UndecodableMessage): unknown {
  if (message.json !== undefined) return message.json;
  if (message.code !== "TOO_DEEP" && message.code !== "TOO_LARGE") return undefined;
  const decoded = decodeJson(message.data);
  return decoded.ok ? decoded.value : undefined;
}

/** An earlier delivery of this same message already wrote the refusal (it names the message's sequence). */
function answersThisMessage(existing: WardenEvent | undefined, principal: string, seq: number): boolean {
  if (existing?.type !== "ToolCallRejected" || existing.data.stage !== "registry" || existing.principal !== principal) return false;
  return existing.data.error.details?.["requestSeq"] === seq;
}

/**
 * A request the stage cannot read (not UTF-8, not JSON, too deep or large, schema-invalid, or
 * naming another call or principal than its subject) → ToolCallRejected (stage registry) built
 * from the subject, so its caller gets an answer instead of a timeout. A call already validated
 * for another request keeps that answer; the message only goes to the DLQ.
 */
export function handleUnreadableRequest(deps: { readonly bus: Bus }) {
  const { bus } = deps;
  return async (message: UndecodableMessage, ctx: StageContext): Promise<StageOutcome> => {
    const { domain, callId, principal } = ctx.subject;
    if (principal === undefined) return { kind: "poison", reason: "a request subject without a principal" };
    if ((await readEvent(bus, domain, callId, "ToolArgsValidated")) !== undefined) {
      return { kind: "poison", reason: `call ${callId} is already validated for another request: a second request reused the callId` };
    }
    const subject = { domain, callId, principal };
    const error = unreadableRequestError(subject, message.code, message.reason, ctx.streamSeq, message.event);
    const ev: ToolCallRejected = unreadableRejectedEvent(subject, peekRequest(bodyJson(message)), messageHash(message.data), error, newId(), new Date());
    ctx.log.debug({ code: error.code, reason: message.code }, "unreadable request rejected");
    const result = await appendEvent(bus, ev);
    if (result.status === "written" || result.ours || answersThisMessage(result.existing, principal, ctx.streamSeq)) return ACK;
    return { kind: "poison", reason: `call ${callId} already has a ToolCallRejected answering another request` };
  };
}
