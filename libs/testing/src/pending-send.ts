import { type PendingApproval } from "@warden/contracts/approval";
import type { ApprovalRequested } from "@warden/contracts/events";
import { argsHash, type JsonValue } from "@warden/contracts/json";

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

/**
 * What the approver's ApprovalRequested says of that send (customer.message with `args`, under
 * the default send rule, expiring in a minute): for tests that play the approver's side.
 */
export function pendingSendRequest(approvalId: string, args: JsonValue, descriptorHash = argsHash({})): ApprovalRequested["data"] {
  return {
    version: "1.0.0",
    descriptorHash,
    grade: "send",
    argsHash: argsHash(args),
    approvalId,
    argsPreview: JSON.stringify(args),
    args,
    title: "Message a customer",
    expiresAt: new Date(Date.now() + 60_000).toISOString(),
    approvers: { human: true, requesterMayConfirm: false },
    reason: "send needs a human",
    ruleIds: ["default.send.plan"],
    policyVersion: "test",
  };
}
