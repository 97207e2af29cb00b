import type { PendingApproval, Reply } from "@warden/contracts";
import type { ApprovalStore } from "../approval-store.js";
import { toPendingApproval, isOverdue } from "../domain/approval-record.js";
import type { ProjectedInbox } from "../projected-inbox.js";

/**
 * `warden.approver.pending`: open approvals from the projected inbox, oldest first. An approval
 * this service has just decided (its event may not be on the stream yet) is left out.
 */
export function pendingHandler(inbox: ProjectedInbox, approvals: ApprovalStore) {
  return async (): Promise<Reply> => {
    const now = new Date();
    const { records } = await inbox.pending();
    const decided = new Set(approvals.open().filter((e) => e.value.status !== "pending").map((e) => e.value.approvalId));
    const listed: PendingApproval[] = records.filter((r) => !isOverdue(r, now) && !decided.has(r.approvalId)).map(toPendingApproval);
    listed.sort((a, b) => a.requestedAt.localeCompare(b.requestedAt) || a.approvalId.localeCompare(b.approvalId));
    return { ok: true, value: listed };
  };
}
