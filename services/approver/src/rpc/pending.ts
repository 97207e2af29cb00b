import { readEvent, type Bus } from "@warden/bus";
import type { PendingApproval, Reply } from "@warden/contracts";
import type { ApprovalStore } from "../approval-store.js";
import { isOverdue, toPendingApproval } from "../domain/approval-record.js";

/**
 * `warden.approver.pending`: open approvals, oldest first. A record is listed once its
 * ApprovalRequested is on the stream (the record is written first), so nothing undecidable shows.
 */
export function pendingHandler(bus: Bus, approvals: ApprovalStore) {
  const confirmed = new Set<string>();
  return async (): Promise<Reply> => {
    const now = new Date();
    const pending = approvals.open().map((e) => e.value).filter((r) => r.status === "pending" && !isOverdue(r, now));
    const listed: PendingApproval[] = [];
    await Promise.all(
      pending.map(async (r) => {
        if (!confirmed.has(r.approvalId)) {
          const requested = await readEvent(bus, r.domain, r.callId, "ApprovalRequested");
          if (requested?.data.approvalId !== r.approvalId) return;
          confirmed.add(r.approvalId);
        }
        listed.push(toPendingApproval(r));
      }),
    );
    // forget what is no longer pending
    const still = new Set(pending.map((r) => r.approvalId));
    for (const id of confirmed) if (!still.has(id)) confirmed.delete(id);
    listed.sort((a, b) => a.requestedAt.localeCompare(b.requestedAt) || a.approvalId.localeCompare(b.approvalId));
    return { ok: true, value: listed };
  };
}
