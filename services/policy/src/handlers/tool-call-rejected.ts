import type { StageContext, StageOutcome } from "@warden/bus";
import type { ToolCallRejected } from "@warden/contracts/events";
import { settleReservations, type SettleDeps } from "../settle-reservations.js";

/** ToolCallRejected after a decision (the approver's quota) -> the call's reservations released. */
export function handleToolCallRejected(deps: SettleDeps) {
  const settle = settleReservations(deps);
  return (event: ToolCallRejected, ctx: StageContext): Promise<StageOutcome> => settle(event, ctx);
}
