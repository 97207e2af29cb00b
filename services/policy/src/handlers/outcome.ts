import type { StageContext, StageOutcome } from "@warden/bus";
import type { ToolCallFinished, ToolCallOutcomeUnknown, ToolCallRejected } from "@warden/contracts/events";
import { settleReservations, type SettleDeps } from "../settle-reservations.js";

/** The outcome slot (ToolCallFinished, ToolCallOutcomeUnknown, the executor's ToolCallRejected) -> the call's reservations spent or released. */
export function handleOutcome(deps: SettleDeps) {
  const settle = settleReservations(deps);
  return (event: ToolCallFinished | ToolCallOutcomeUnknown | ToolCallRejected, ctx: StageContext): Promise<StageOutcome> => settle(event, ctx);
}
