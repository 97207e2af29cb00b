import type { ApprovalDenied, ApprovalExpired, ApprovalGranted, ToolCallCancelled } from "@warden/contracts/events";
import type { Judgement } from "./decision.js";

/** A call's terminal approval events as the stream holds them (each written at most once). */
export interface StreamOutcome {
  readonly granted: ApprovalGranted | undefined;
  readonly denied: ApprovalDenied | undefined;
  readonly expired: ApprovalExpired | undefined;
  /** A cancel of the call by its requester or an operator (it holds the claim slot). */
  readonly cancelled?: ToolCallCancelled | undefined;
}

export const NO_OUTCOME: StreamOutcome = { granted: undefined, denied: undefined, expired: undefined };

/**
 * Whether the stream already settled the call's approval, whatever the approver's lock record
 * says: the record is a KV value, the events are append-once evidence. A denial or expiry wins
 * over a grant in the message (a grant next to either is itself a fault).
 */
export function judgeStreamOutcome(o: StreamOutcome): Judgement {
  if (o.cancelled !== undefined) {
    const c = o.cancelled;
    return { ok: false, refusal: "ALREADY_DECIDED", message: `the call was cancelled by ${c.data.by} at ${c.ts}`, decided: { decision: "cancel", by: c.data.by, at: c.ts } };
  }
  if (o.denied !== undefined) {
    const d = o.denied;
    return { ok: false, refusal: "ALREADY_DECIDED", message: `the approval was already denied by ${d.data.approver} at ${d.ts}`, decided: { decision: "deny", by: d.data.approver, at: d.ts } };
  }
  if (o.expired !== undefined) {
    const e = o.expired;
    return { ok: false, refusal: "EXPIRED", message: `the approval expired at ${e.data.expiresAt} (recorded at ${e.ts})`, decided: { decision: "expire", at: e.data.expiresAt } };
  }
  if (o.granted !== undefined) {
    const g = o.granted.data;
    return { ok: false, refusal: "ALREADY_DECIDED", message: `the approval was already granted by ${g.approver} at ${g.grantedAt}`, decided: { decision: "grant", by: g.approver, at: g.grantedAt } };
  }
  return { ok: true };
}

/** True when the stream holds any terminal approval event of the call. */
export function settledOnStream(o: StreamOutcome): boolean {
  return o.granted !== undefined || o.denied !== undefined || o.expired !== undefined || o.cancelled !== undefined;
}
