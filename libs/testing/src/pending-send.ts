import { type PendingApproval } from "@warden/contracts/approval";

/**
 * A send waiting for a person, as the approver lists it: planner's customer.message, asked in
 * plan mode, expiring in a minute; `overrides` set what a test is about (its call, its args).
 */
export function pendingSend(approvalId: string, overrides: Partial<PendingApproval> = {}): PendingApproval {
  return {
    approvalId,
    callId: `call-${approvalId}`,
    domain: "customer",
    tool: "customer.message",
    title: "Message a customer",
    grade: "send",
    principal: "planner",
    mode: "plan",
    argsHash: `sha256:${"a".repeat(64)}`,
    argsPreview: '{"customerId":"C-1","text":"hi"}',
    reason: "send needs a person",
    requestedAt: new Date().toISOString(),
    expiresAt: new Date(Date.now() + 60_000).toISOString(),
    approvers: { human: true, requesterMayConfirm: false },
    ...overrides,
  };
}
