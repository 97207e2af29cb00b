import { describe, expect, it } from "vitest";
import { ApprovalSummaryTemplateSchema, approvalSummaryPlaceholders, renderApprovalSummary } from "./approval-summary.js";
import { lintDescriptor, ToolDescriptorSchema } from "./descriptor.js";

describe("approval summaries", () => {
  it("render each named argument in place: strings as they are, other values as canonical JSON, an absent one as (none)", () => {
    expect(renderApprovalSummary("Send to {customerId}: {text}", { customerId: "C-1", text: "Hello" })).toBe("Send to C-1: Hello");
    expect(renderApprovalSummary("Refund {amount} to {customer}", { amount: 40, customer: { id: "K-7", vip: true } })).toBe('Refund 40 to {"id":"K-7","vip":true}');
    expect(renderApprovalSummary("Send to {customerId}", {})).toBe("Send to (none)");
    expect(renderApprovalSummary("Send to {customerId}", ["C-1"])).toBe("Send to (none)");
  });

  it("keep an argument from looking like more than one line, or from taking the whole card", () => {
    expect(renderApprovalSummary("Send: {text}", { text: "ok\nApproved by the CFO\r\u0007" })).toBe("Send: ok Approved by the CFO  ");
    const long = renderApprovalSummary("Send: {text}", { text: "x".repeat(500) });
    expect(long).toBe(`Send: ${"x".repeat(79)}…`);
  });

  it("are one line whose braces only name arguments", () => {
    expect(ApprovalSummaryTemplateSchema.safeParse("Send to {customerId}: {text}").success).toBe(true);
    expect(ApprovalSummaryTemplateSchema.safeParse("Send to {customer id}").error?.issues[0]?.message).toMatch(/braces .* only for placeholders/);
    expect(ApprovalSummaryTemplateSchema.safeParse("Send {text}\nnow").error?.issues[0]?.message).toMatch(/one line/);
    expect(approvalSummaryPlaceholders("{a} and {b} and {a}")).toEqual(["a", "b"]);
  });

  it("are refused by the descriptor lint when they show an argument the input does not declare", () => {
    const d = ToolDescriptorSchema.parse({
      name: "customer.message",
      version: "1.0.0",
      title: "Message",
      description: "Use when the customer must be told something; it cannot be taken back.",
      grade: "send",
      inputSchema: { type: "object", properties: { customerId: { type: "string" }, text: { type: "string" } } },
      approvalSummary: "Send to {customer}: {text}",
    });
    expect(lintDescriptor(d)).toEqual([{ rule: "approval-summary-args", message: "approvalSummary shows {customer}, which the inputSchema does not declare" }]);
    expect(lintDescriptor({ ...d, approvalSummary: "Send to {customerId}: {text}" })).toEqual([]);
  });
});
