import type { PendingApproval } from "@warden/contracts/approval";
import type { ApproverClient } from "@warden/sdk";
import { eventually } from "@warden/testing";
import { expect } from "vitest";

/**
 * The card the first approval `matches` picks in `approver`'s inbox; the inbox is read from the
 * stream, so on a loaded machine a new request may take a moment to be listed.
 */
export function cardIn(approver: ApproverClient, matches: (card: PendingApproval) => boolean, timeoutMs?: number): Promise<PendingApproval> {
  return eventually(async () => {
    const inbox = await approver.pending();
    const found = inbox.ok ? inbox.value.find(matches) : undefined;
    expect(found).toBeDefined();
    return found!;
  }, timeoutMs);
}
