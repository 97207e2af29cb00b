import { describe, expect, it } from "vitest";
import type { PendingApproval } from "@warden/contracts/approval";
import { confirmationPath, confirmationRequest, confirmedBy, confirmElsewhereNote } from "./confirmation.js";

const approval: PendingApproval = {
  approvalId: "ap1",
  callId: "c1",
  domain: "customer",
  tool: "customer.message",
  title: "Send a message to a customer",
  grade: "send",
  principal: "alice",
  mode: "human",
  argsHash: "h",
  argsPreview: '{"customerId":"C-1","text":"hi"}',
  reason: "send in human mode: the requester confirms",
  requestedAt: "2026-01-01T00:00:00.000Z",
  expiresAt: "2026-01-01T00:15:00.000Z",
  approvers: { human: true, requesterMayConfirm: true },
};

describe("asking the session's person to confirm", () => {
  it("shows the tool, its grade, the exact args the approval is bound to and the deadline", () => {
    const form = confirmationRequest(approval, "customer__message");
    expect(form.message).toContain("customer.message");
    expect(form.message).toContain("send call");
    expect(form.message).toContain(approval.argsPreview);
    expect(form.message).toContain(approval.expiresAt);
    expect(form.requestedSchema).toMatchObject({ type: "object", required: ["confirm"], properties: { confirm: { type: "boolean", default: false } } });
  });

  it("runs the call only on accept with confirm true; accept with false and decline deny it; anything else leaves it pending", () => {
    expect(confirmedBy({ action: "accept", content: { confirm: true } })).toBe("confirm");
    expect(confirmedBy({ action: "accept", content: { confirm: false } })).toBe("decline");
    expect(confirmedBy({ action: "accept", content: { confirm: "yes" } })).toBe("decline");
    expect(confirmedBy({ action: "decline" })).toBe("decline");
    expect(confirmedBy({ action: "cancel" })).toBe("cancel");
  });

  it("asks only the requester's own process (stdio): over HTTP the requester's call waits for a decision elsewhere", () => {
    const own = { principal: "alice", mode: "human", ownProcess: true, mayAsk: true, approval };
    expect(confirmationPath(own)).toBe("ask");
    expect(confirmationPath({ ...own, ownProcess: false })).toBe("elsewhere");
    // where the client cannot or may not ask, over HTTP too, nothing is asked
    expect(confirmationPath({ ...own, ownProcess: false, mayAsk: false })).toBe("elsewhere");
    expect(confirmationPath({ ...own, mayAsk: false })).toBe("none");
  });

  it("never asks for a call that is not the session person's to confirm", () => {
    const own = { principal: "alice", mode: "human", ownProcess: true, mayAsk: true, approval };
    expect(confirmationPath({ ...own, mode: "plan" })).toBe("none");
    expect(confirmationPath({ ...own, principal: "bob" })).toBe("none");
    expect(confirmationPath({ ...own, approval: undefined })).toBe("none");
    expect(confirmationPath({ ...own, approval: { ...approval, approvers: { human: true, requesterMayConfirm: false } } })).toBe("none");
  });

  it("tells an HTTP client where the call can be confirmed, and that it has not run", () => {
    const note = confirmElsewhereNote(approval);
    expect(note).toContain("warden inbox --as alice");
    expect(note).toContain("warden approve ap1 --as alice");
    expect(note).toContain("does not run");
  });
});
