import type { StageContext, StageOutcome } from "@warden/bus";
import type { ApprovalExpired } from "@warden/contracts/events";
import { settleReservations, type SettleDeps } from "../settle-reservations.js";

/** ApprovalExpired -> the call's reservations released. */
export function handleApprovalExpired(deps: SettleDeps) {
  const settle = settleReservations(deps);
  return (event: ApprovalExpired, ctx: StageContext): Promise<StageOutcome> => settle(event, ctx);
}
