import type { ApprovalRecord } from "./approval-record.js";

/**
 * How many approvals a requester has open: pending records of theirs that have not expired. An
 * overdue one the sweeper has not reached yet no longer counts, so a lost expiry never holds the
 * quota.
 */
export function openApprovalsOf(records: Iterable<ApprovalRecord>, principal: string, nowMs: number): number {
  let open = 0;
  for (const r of records) {
    if (r.principal === principal && r.status === "pending" && Date.parse(r.expiresAt) > nowMs) open++;
  }
  return open;
}
