import { ACK, appendEvent, readEvent, type Bus, type StageContext, type StageOutcome } from "@warden/bus";
import { newId, type ApprovalRequested, type ToolPolicyChecked } from "@warden/contracts";
import type { ApprovalStore } from "../approval-store.js";
import { approvalRequestedEvent } from "../domain/approval-events.js";
import { recordOf } from "../domain/approval-record.js";
import type { PolicyDocumentFollower } from "@warden/service-kit";

export interface ApprovalRequestDeps {
  readonly bus: Bus;
  readonly documents: PolicyDocumentFollower;
  readonly approvals: ApprovalStore;
  readonly titleOf: (tool: string, version: string) => Promise<string>;
}

/**
 * ToolPolicyChecked (require_approval) -> inbox record, then ApprovalRequested. The record comes
 * first so a decision never finds an event without one; a redelivery reuses the written request.
 */
export function handleToolPolicyChecked(deps: ApprovalRequestDeps) {
  const { bus, approvals } = deps;
  return async (checked: ToolPolicyChecked, ctx: StageContext): Promise<StageOutcome> => {
    if (checked.data.decision !== "require_approval") return ACK;
    const existing = await readEvent(bus, checked.domain, checked.callId, "ApprovalRequested");
    if (existing !== undefined) return reuse(existing);

    const event = approvalRequestedEvent(
      checked,
      { approvalId: newId(), title: await deps.titleOf(checked.tool, checked.data.version), doc: deps.documents.current(), now: new Date() },
      { eventId: newId(), ts: new Date().toISOString() },
    );
    await approvals.create(recordOf(event));
    const appended = await appendEvent(bus, event);
    if (appended.status === "written") {
      ctx.log.info({ approvalId: event.data.approvalId, expiresAt: event.data.expiresAt }, "approval requested");
      return ACK;
    }
    // another delivery of this message won the slot: our record is an orphan nobody can decide
    await approvals.remove(event.data.approvalId);
    if (appended.existing?.type === "ApprovalRequested") return reuse(appended.existing);
    ctx.log.warn("approval request slot is taken by an unreadable event");
    return ACK;

    async function reuse(requested: ApprovalRequested): Promise<StageOutcome> {
      if (requested.causationId !== checked.eventId) {
        ctx.log.warn({ existingEventId: requested.eventId }, "call already has an approval request for another cause");
        return ACK;
      }
      // its record was written before it; this only restores one that has gone missing
      await approvals.create(recordOf(requested));
      return ACK;
    }
  };
}
