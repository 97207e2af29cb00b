import type { ApprovalDenied, ApprovalExpired, ApprovalGranted } from "@warden/contracts";
import type { Judgement } from "./decision.js";

/** A call's terminal approval events as the stream holds them (each written at most once). */
export interface StreamOutcome {
  readonly granted: ApprovalGranted | undefined;
  readonly denied: ApprovalDenied | undefined;
  readonly expired: ApprovalExpired | undefined;
}

export const NO_OUTCOME: StreamOutcome = { granted: undefined, denied: undefined, expired: undefined };

/**
 * Whether the stream already settled the call's approval, whatever the approver's lock record
 * says: the record is a KV value, the events are append-once evidence. A denial or expiry wins
 * over a grant in the message (a grant next to either is itself a fault).
 */
export function judgeStreamOutcome(o: StreamOutcome): Judgement {
  if (o.denied !== undefined) {
    return { ok: false, refusal: "ALREADY_DECIDED", message: `the approval was already denied by ${o.denied.data.approver} at ${o.denied.ts}` };
  }
  if (o.expired !== undefined) {
    return { ok: false, refusal: "EXPIRED", message: `the approval expired at ${o.expired.data.expiresAt} (recorded at ${o.expired.ts})` };
  }
  if (o.granted !== undefined) {
    return { ok: false, refusal: "ALREADY_DECIDED", message: `the approval was already granted by ${o.granted.data.approver} at ${o.granted.data.grantedAt}` };
  }
  return { ok: true };
}

/** True when the stream holds any terminal approval event of the call. */
export function settledOnStream(o: StreamOutcome): boolean {
  return o.granted !== undefined || o.denied !== undefined || o.expired !== undefined;
}
