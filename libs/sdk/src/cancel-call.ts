import { requestRpc, type Bus } from "@warden/bus";
import { cancelSubject, isSafeToken } from "@warden/contracts/subjects";
import { CancelReplySchema, type CancelReply, type CancelRequest } from "@warden/contracts/approval";

/** A cancel's answer; `UNAVAILABLE` when no approver service answered in time. */
export type CancelOutcome = CancelReply | { readonly ok: false; readonly refusal: "UNAVAILABLE"; readonly message: string };

const CANCEL_TIMEOUT_MS = 5_000;

/**
 * Cancels a call that has not started, as `principal` (its requester, or an operator the policy
 * document names). Refusals: `NOT_FOUND`, `NOT_AUTHORISED`, `ALREADY_STARTED` (the executor's
 * claim came first), `ALREADY_ENDED`, `MALFORMED`. Cancelling twice answers the first cancel.
 */
export async function cancelCall(bus: Bus, principal: string, callId: string, reason?: string, timeoutMs = CANCEL_TIMEOUT_MS): Promise<CancelOutcome> {
  return cancelRequest(bus, principal, callId, reason === undefined ? {} : { reason }, timeoutMs);
}

/**
 * Revokes the session grant made on call `callId` (its id), as `principal`: the person who made
 * it, or an operator. No later call is granted by it; a call it granted that has not run yet is
 * refused `GRANT_REVOKED`. Refusals: `NOT_FOUND` (the call made no session grant),
 * `NOT_AUTHORISED`, `MALFORMED`. Revoking twice answers the first revoke.
 */
export async function revokeSessionGrant(bus: Bus, principal: string, grantId: string, reason?: string, timeoutMs = CANCEL_TIMEOUT_MS): Promise<CancelOutcome> {
  return cancelRequest(bus, principal, grantId, { session: true, ...(reason === undefined ? {} : { reason }) }, timeoutMs);
}

async function cancelRequest(bus: Bus, principal: string, callId: string, body: CancelRequest, timeoutMs: number): Promise<CancelOutcome> {
  if (!isSafeToken(principal) || !isSafeToken(callId)) {
    return { ok: false, refusal: "MALFORMED", message: "principal and call id must be safe tokens (^[A-Za-z0-9_-]{1,128}$)" };
  }
  const reply = await requestRpc(bus, cancelSubject(principal, callId), body, timeoutMs);
  if (!reply.ok) {
    if (reply.error.code === "FORBIDDEN") return { ok: false, refusal: "NOT_AUTHORISED", message: reply.error.message };
    if (reply.error.code === "UNAVAILABLE") return { ok: false, refusal: "UNAVAILABLE", message: reply.error.message };
    return { ok: false, refusal: "MALFORMED", message: `${reply.error.code}: ${reply.error.message}` };
  }
  const parsed = CancelReplySchema.safeParse(reply.value);
  return parsed.success ? parsed.data : { ok: false, refusal: "MALFORMED", message: "unexpected cancel reply" };
}
