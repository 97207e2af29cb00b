import { expect } from "vitest";
import type { PendingApproval } from "@warden/contracts/approval";
import type { ApproverClient } from "@warden/sdk";
import { eventually } from "@warden/testing";

/** The approval card of `callId` in the approver's inbox, once the executor's dry run is on it. */
export function cardWithPreview(approver: ApproverClient, callId: string): Promise<PendingApproval> {
  return eventually(async () => {
    const p = await approver.pending();
    const found = p.ok ? p.value.find((a) => a.callId === callId) : undefined;
    expect(found?.preview).toBeDefined();
    return found!;
  }, 15_000);
}
