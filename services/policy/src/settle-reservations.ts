import { ACK, readEvent, type Bus, type StageContext, type StageOutcome } from "@warden/bus";
import { historySettlementOf, settlementOf, type SettlingEvent } from "./domain/settlement.js";
import type { HistoryIndex } from "./history-index.js";
import type { Ledgers } from "./ledgers.js";
import type { RunLabelsIndex } from "./run-labels-index.js";

export interface SettleDeps {
  readonly bus: Bus;
  readonly ledgers: Ledgers;
  readonly history?: HistoryIndex;
  readonly labels?: RunLabelsIndex;
}

/**
 * Settles what a call reserved in the ledgers when its result arrives: the call's decision names
 * its reservations, so the document in force now does not matter. A call that reserved nothing
 * (no ledger applied, or it was decided before the ledgers existed) is done at once.
 */
export function settleReservations(deps: SettleDeps) {
  return async (event: SettlingEvent, ctx: StageContext): Promise<StageOutcome> => {
    const checked = await readEvent(deps.bus, event.domain, event.callId, "ToolPolicyChecked");
    const holds = checked?.data.historyHolds;
    if (holds !== undefined && deps.history !== undefined) {
      const how = historySettlementOf(event);
      await deps.history.settle(event.callId, holds, how);
      ctx.log.debug({ how, keys: holds.length }, "history entries settled");
    }
    const run = checked?.data.labelRun;
    if (run !== undefined && checked?.data.resultLabels !== undefined && deps.labels !== undefined) {
      await deps.labels.settle(run, event.callId, historySettlementOf(event));
    }
    const reservations = checked?.data.reservations;
    if (reservations === undefined) return ACK;
    const how = settlementOf(event);
    await deps.ledgers.settle(event.callId, reservations, how);
    ctx.log.debug({ how, ledgers: reservations.map((r) => r.ledger) }, "ledger reservations settled");
    return ACK;
  };
}
