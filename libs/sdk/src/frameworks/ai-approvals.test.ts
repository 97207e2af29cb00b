import { describe, expect, it } from "vitest";
import type { ModelMessage } from "ai";
import { MAX_IDEMPOTENCY_KEY_LENGTH } from "@warden/contracts/events";
import { aiToolCallKey, answeredInApp, appApprovalAnswers } from "./ai-approvals.js";

const input = { ticketId: "T-1", fields: { priority: "high" } };

/** A history as `convertToModelMessages` makes it after `addToolApprovalResponse`. */
function history(last: ModelMessage): ModelMessage[] {
  return [
    { role: "user", content: "file T-1" },
    {
      role: "assistant",
      content: [
        { type: "tool-call", toolCallId: "c1", toolName: "ticket__fill", input },
        { type: "tool-approval-request", approvalId: "a1", toolCallId: "c1" },
        { type: "tool-call", toolCallId: "c2", toolName: "kb__search", input: { query: "x" } },
        { type: "tool-approval-request", approvalId: "a2", toolCallId: "c2", isAutomatic: true },
      ],
    },
    last,
  ];
}

describe("appApprovalAnswers: the app's answers to approval requests, read from the history it sends back", () => {
  it("matches each response of the last tool message to its request's tool call, with the input the person was shown and the reason", () => {
    const messages = history({ role: "tool", content: [{ type: "tool-approval-response", approvalId: "a1", approved: false, reason: "not now" }] });
    expect(appApprovalAnswers(messages)).toEqual([{ approvalId: "a1", toolCallId: "c1", toolName: "ticket__fill", input, approved: false, reason: "not now" }]);
    expect(answeredInApp(messages, "c1")).toBe(true);
    expect(answeredInApp(messages, "c2")).toBe(false);
  });

  it("leaves out automatic approvals, responses to no request in the history, and responses not in the last message", () => {
    const automatic = history({ role: "tool", content: [{ type: "tool-approval-response", approvalId: "a2", approved: true }, { type: "tool-approval-response", approvalId: "forged", approved: true }] });
    expect(appApprovalAnswers(automatic)).toEqual([]);
    const older = [...history({ role: "tool", content: [{ type: "tool-approval-response", approvalId: "a1", approved: true }] }), { role: "user", content: "and?" } satisfies ModelMessage];
    expect(appApprovalAnswers(older)).toEqual([]);
    expect(answeredInApp(older, "c1")).toBe(false);
  });
});

describe("aiToolCallKey: one Warden call per tool call of a chat", () => {
  it("differs between chats for the same model tool call id, and stays within the idempotency key bound", () => {
    expect(aiToolCallKey("chat-1", "call_0")).not.toBe(aiToolCallKey("chat-2", "call_0"));
    expect(aiToolCallKey("chat-1", "call_0")).toBe(aiToolCallKey("chat-1", "call_0"));
    const long = aiToolCallKey("c".repeat(300), "call_0");
    expect(long.length).toBeLessThanOrEqual(MAX_IDEMPOTENCY_KEY_LENGTH);
    expect(long).not.toBe(aiToolCallKey("c".repeat(301), "call_0"));
  });
});
