import type { StageContext, StageOutcome } from "@warden/bus";
import type { ApprovalDenied } from "@warden/contracts/events";
import { settleReservations, type SettleDeps } from "../settle-reservations.js";

/** ApprovalDenied -> the call's reservations released. */
export function handleApprovalDenied(deps: SettleDeps) {
  const settle = settleReservations(deps);
  return (event: ApprovalDenied, ctx: StageContext): Promise<StageOutcome> => settle(event, ctx);
}
