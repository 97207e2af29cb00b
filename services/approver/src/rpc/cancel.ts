import { appendEvent, readEvent, readOutcome, type Bus, type Logger } from "@warden/bus";
import { nextCallEvent, stampNow } from "@warden/contracts/events";
import { callRequestedAnyDomainSubject, parseCallSubject, parseCancelSubject, STREAM_CALLS } from "@warden/contracts/subjects";
import { type Reply } from "@warden/contracts/descriptor";
import { CancelRequestSchema, type CancelReply } from "@warden/contracts/approval";
import { principalOf } from "@warden/policy-engine";
import type { PolicyDocumentFollower } from "@warden/service-kit";

export interface CancelDeps {
  readonly bus: Bus;
  readonly log: Logger;
  readonly documents: PolicyDocumentFollower;
}

const answer = (reply: CancelReply): Reply => ({ ok: true, value: reply });

/**
 * `warden.cancel.<principal>.<callId>`: the principal is the subject's token (NATS permissions
 * pin it). The call's requester, or a principal the policy document names `operator`, may cancel
 * a call that has not started; a person who granted it may revoke that grant while it is unused
 * (the same event, `as: approver`): the ToolCallCancelled is appended on the call's ToolCallStarted
 * subject, so the server keeps either the cancel or the executor's claim, whichever came first.
 */
export function cancelHandler(deps: CancelDeps) {
  const { bus } = deps;
  /** Why this principal may stop the call: its requester, an operator, or a person who granted it (a revoke). */
  async function roleOf(principal: string, requester: string, domain: string, callId: string): Promise<"requester" | "operator" | "approver" | undefined> {
    if (principal === requester) return "requester";
    if (principalOf(deps.documents.current(), principal).operator === true) return "operator";
    const grant = await readEvent(bus, domain, callId, "ApprovalGranted");
    const granters = grant === undefined ? [] : [grant.data.approver, ...(grant.data.coApprovers ?? []).map((c) => c.approver)];
    return granters.includes(principal) ? "approver" : undefined;
  }

  return async (payload: unknown, msg: { subject: string }): Promise<Reply> => {
    const subject = parseCancelSubject(msg.subject);
    if (subject === undefined) return answer({ ok: false, refusal: "MALFORMED", message: `not a cancel subject: ${msg.subject}` });
    const body = CancelRequestSchema.safeParse(payload ?? {});
    if (!body.success) return answer({ ok: false, refusal: "MALFORMED", message: `bad cancel request: ${body.error.issues[0]?.message ?? "invalid"}` });
    const { principal, callId } = subject;
    const log = deps.log.child({ callId, by: principal });
    if (body.data.session === true) return revokeSession(principal, callId, body.data.reason?.trim() ?? "", log);
    const domain = await domainOf(bus, callId);
    const request = domain === undefined ? undefined : await readEvent(bus, domain, callId, "ToolCallRequested");
    if (domain === undefined || request === undefined) return answer({ ok: false, refusal: "NOT_FOUND", message: `no call ${callId}` });
    const as = await roleOf(principal, request.principal, domain, callId);
    if (as === undefined) {
      return answer({
        ok: false,
        refusal: "NOT_AUTHORISED",
        message: `${principal} may cancel only its own calls, or revoke its own grants (the policy document does not name it operator)`,
      });
    }
    const ended = await endOf(bus, domain, callId);
    if (ended !== undefined) return answer({ ok: false, refusal: "ALREADY_ENDED", message: ended });
    const approval = await readEvent(bus, domain, callId, "ApprovalRequested");
    const data = { by: principal, as, reason: body.data.reason?.trim() ?? "", ...(approval === undefined ? {} : { approvalId: approval.data.approvalId }) };
    const cancel = nextCallEvent(request, "ToolCallCancelled", data, stampNow());
    const appended = await appendEvent(bus, cancel);
    if (appended.status === "written") {
      log.info({ as: cancel.data.as }, "call cancelled before it started");
      return answer({ ok: true, callId, domain, by: principal, at: cancel.ts });
    }
    const existing = appended.existing;
    if (existing?.type === "ToolCallCancelled") {
      return answer({ ok: true, callId, domain, by: existing.data.by, at: existing.ts });
    }
    if (existing?.type === "ToolCallStarted") {
      return answer({ ok: false, refusal: "ALREADY_STARTED", message: `the call started at ${existing.ts} (executor ${existing.data.executorId}); it can no longer be cancelled` });
    }
    return answer({ ok: false, refusal: "ALREADY_STARTED", message: "the call's claim slot is taken; it can no longer be cancelled" });
  };

  /** Revokes the session grant made on call `callId`: by the person who made it, or an operator. */
  async function revokeSession(principal: string, callId: string, reason: string, log: Logger): Promise<Reply> {
    const grant = await sessionGrantOf(bus, callId);
    if (grant?.data.session === undefined) return answer({ ok: false, refusal: "NOT_FOUND", message: `call ${callId} made no session grant` });
    const operator = principalOf(deps.documents.current(), principal).operator === true;
    const as = principal === grant.data.approver ? "approver" : operator ? "operator" : undefined;
    if (as === undefined) {
      return answer({ ok: false, refusal: "NOT_AUTHORISED", message: `${principal} may revoke only its own session grants (this one is ${grant.data.approver}'s; the policy document does not name ${principal} operator)` });
    }
    const revoke = nextCallEvent(grant, "SessionGrantRevoked", { approvalId: grant.data.approvalId, by: principal, as, reason }, stampNow());
    const appended = await appendEvent(bus, revoke);
    const held = appended.status === "written" ? revoke : appended.existing;
    if (held?.type !== "SessionGrantRevoked") return answer({ ok: false, refusal: "ALREADY_ENDED", message: "the session grant's revoke slot holds something unreadable" });
    if (appended.status === "written") {
      // after it expired the revoke is only a record: nothing was covered any more
      log.info({ as, expiresAt: grant.data.session.expiresAt }, "session grant revoked");
    }
    return answer({ ok: true, callId, domain: grant.domain, by: held.data.by, at: held.ts });
  }
}

/** Every domain a request with this call id was stored under (anyone may publish a request under a call id it learnt). */
async function domainsOf(bus: Bus, callId: string): Promise<string[]> {
  const info = await bus.jsm.streams.info(STREAM_CALLS, { subjects_filter: callRequestedAnyDomainSubject(callId) });
  return Object.keys(info.state.subjects ?? {}).flatMap((s) => parseCallSubject(s)?.domain ?? []);
}

/**
 * The domain of the call the registry validated under this id: a request someone else stored
 * under the same id in another domain (which sorts first, say) must not hide the real call.
 */
async function domainOf(bus: Bus, callId: string): Promise<string | undefined> {
  const domains = await domainsOf(bus, callId);
  for (const d of domains) if ((await readEvent(bus, d, callId, "ToolArgsValidated")) !== undefined) return d;
  return domains[0];
}

/** The session grant made on this call id, in whichever domain it is. */
async function sessionGrantOf(bus: Bus, callId: string) {
  for (const d of await domainsOf(bus, callId)) {
    const grant = await readEvent(bus, d, callId, "ApprovalGranted");
    if (grant?.data.session !== undefined) return grant;
  }
  return undefined;
}

/** Why a call can no longer be cancelled because it already ended, or undefined while it has not. */
async function endOf(bus: Bus, domain: string, callId: string): Promise<string | undefined> {
  const [outcome, rejected, denied, expired] = await Promise.all([
    readOutcome(bus, domain, callId),
    readEvent(bus, domain, callId, "ToolCallRejected"),
    readEvent(bus, domain, callId, "ApprovalDenied"),
    readEvent(bus, domain, callId, "ApprovalExpired"),
  ]);
  if (outcome !== undefined) return `the call already ended (${outcome.type} at ${outcome.ts})`;
  if (rejected !== undefined) return `the call was already refused by the ${rejected.data.stage} at ${rejected.ts}: ${rejected.data.error.code}`;
  if (denied !== undefined) return `the call's approval was already denied by ${denied.data.approver} at ${denied.ts}`;
  if (expired !== undefined) return `the call's approval already expired at ${expired.data.expiresAt}`;
  return undefined;
}
