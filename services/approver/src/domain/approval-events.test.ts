import { describe, expect, it } from "vitest";
import { ApprovalRequestedSchema, type ToolPolicyChecked } from "@warden/contracts/events";
import { ARGS_PREVIEW_CHARS } from "@warden/contracts/subjects";
import { ToolDescriptorSchema, type Grade } from "@warden/contracts/descriptor";
import { PolicyDocumentSchema } from "@warden/contracts/policy";
import { approvalRequestedEvent, approvalTtlSeconds, argsPreview } from "./approval-events.js";
import { pendingApprovalOf, recordOf } from "./approval-record.js";
import { policyDecision } from "../../test-support/policy-decision.js";

const doc = PolicyDocumentSchema.parse({ version: "v3", approvalTtlSeconds: { write: 600, send: 60 } });

function checked(mode: ToolPolicyChecked["mode"], grade: Grade = "send"): ToolPolicyChecked {
  return policyDecision({
    mode,
    grade,
    principal: "dave",
    args: { customerId: "c1", text: "hi" },
    policyVersion: "v3",
    envelope: { eventId: "pc1", callId: "call1", ts: "2030-01-01T00:00:00.000Z", causationId: "val1", correlationId: "run1" },
  });
}

const NOW = new Date("2030-01-01T00:00:00.000Z");

/** customer.message's descriptor with `extra` fields. */
const described = (extra: Record<string, unknown>) =>
  ToolDescriptorSchema.parse({ name: "customer.message", version: "1.0.0", title: "Message", description: "Use when a customer should hear from us.", inputSchema: { type: "object" }, grade: "send", ...extra });

describe("approvalRequestedEvent", () => {
  it("asks a person, lets the requester confirm only in human mode, and expires per grade", () => {
    for (const mode of ["human", "plan", "llm"] as const) {
      const ev = approvalRequestedEvent(checked(mode), { approvalId: "a1", title: "Message", doc, now: NOW }, { eventId: "e1", ts: NOW.toISOString() });
      expect(ApprovalRequestedSchema.parse(ev)).toEqual(ev);
      expect(ev.data.approvers).toEqual({ human: true, requesterMayConfirm: mode === "human" });
      expect(ev.data.expiresAt).toBe("2030-01-01T00:01:00.000Z");
      expect(ev).toMatchObject({ causationId: "pc1", principal: "dave", mode });
      expect(ev.data).toMatchObject({ reason: "a person must confirm", policyVersion: "v3", title: "Message", argsPreview: '{"customerId":"c1","text":"hi"}' });
    }
  });

  it("gives a write, and a read a rule made wait, the write lifetime", () => {
    expect(approvalTtlSeconds(doc, "write")).toBe(600);
    expect(approvalTtlSeconds(doc, "read")).toBe(600);
    expect(approvalTtlSeconds(doc, "send")).toBe(60);
  });

  it("builds the lock record and the pending view from the event alone", () => {
    const ev = approvalRequestedEvent(checked("plan"), { approvalId: "a1", title: "Message", doc, now: NOW }, { eventId: "e1", ts: NOW.toISOString() });
    const record = recordOf(ev);
    expect(record).toMatchObject({ approvalId: "a1", status: "pending", requestEventId: "e1", principal: "dave", requestedAt: NOW.toISOString() });
    expect(pendingApprovalOf(ev)).toEqual({
      approvalId: "a1",
      callId: "call1",
      domain: "customer",
      tool: "customer.message",
      title: "Message",
      grade: "send",
      principal: "dave",
      mode: "plan",
      argsHash: ev.data.argsHash,
      argsPreview: '{"customerId":"c1","text":"hi"}',
      args: { customerId: "c1", text: "hi" },
      chain: [],
      onBehalfOf: "dave",
      ruleIds: ev.data.ruleIds,
      policyVersion: ev.data.policyVersion,
      // no descriptor was given: the card says the registry does not describe it
      riskReasons: ["send: cannot be undone, or is seen outside at once", "the registry does not describe this tool version"],
      deciders: ev.data.deciders,
      quorum: 1,
      quorumRule: { id: "default.quorum", reason: "one person decides (no approvalQuorum entry matches)" },
      reason: "a person must confirm",
      requestedAt: NOW.toISOString(),
      expiresAt: ev.data.expiresAt,
      approvers: { human: true, requesterMayConfirm: false },
    });
  });

  it("puts the tool's level and action type on the card, and asks two people for an L5 call by default", () => {
    const descriptor = ToolDescriptorSchema.parse({
      name: "customer.message",
      version: "1.0.0",
      title: "Erase",
      description: "Use when a customer asks to be forgotten; erases their messages.",
      inputSchema: { type: "object" },
      grade: "send",
      destructive: true,
      actionType: "delete",
    });
    const ev = approvalRequestedEvent(checked("plan"), { approvalId: "a1", title: "Erase", doc, now: NOW, descriptor }, { eventId: "e1", ts: NOW.toISOString() });
    expect(ApprovalRequestedSchema.parse(ev)).toEqual(ev);
    expect(ev.data).toMatchObject({ level: "L5", actionType: "delete", quorum: 2, quorumRule: { id: "default.quorum.L5" } });
    expect(ev.data.riskReasons).toContain("L5 (destructive or admin): decided call by call, never for a session");
    expect(pendingApprovalOf(ev)).toMatchObject({ level: "L5", actionType: "delete", quorum: 2, quorumRule: { id: "default.quorum.L5" } });
  });

  it("says on the card whose credentials the tool acts with: the caller's, the service's, or nothing for a tool without secrets", () => {
    const card = (extra: Record<string, unknown>) =>
      approvalRequestedEvent(checked("plan"), { approvalId: "a1", title: "Message", doc, now: NOW, descriptor: described(extra) }, { eventId: "e1", ts: NOW.toISOString() });
    const caller = card({ secrets: ["mail_token"], actsAs: "caller" });
    expect(ApprovalRequestedSchema.parse(caller)).toEqual(caller);
    expect(caller.data.actsAs).toBe("caller");
    expect(pendingApprovalOf(caller)).toMatchObject({ actsAs: "caller" });
    expect(card({ secrets: ["mail_token"] }).data.actsAs).toBe("service");
    expect(card({}).data).not.toHaveProperty("actsAs");
  });

  it("puts the tool's summary template on the card and renders the summary from the args the grant binds", () => {
    const descriptor = described({ approvalSummary: "Send to {customerId}: {text}" });
    const ev = approvalRequestedEvent(checked("plan"), { approvalId: "a1", title: "Message", doc, now: NOW, descriptor }, { eventId: "e1", ts: NOW.toISOString() });
    expect(ApprovalRequestedSchema.parse(ev).data.summaryTemplate).toBe("Send to {customerId}: {text}");
    expect(pendingApprovalOf(ev).summary).toBe("Send to c1: hi");
    expect(pendingApprovalOf(approvalRequestedEvent(checked("plan"), { approvalId: "a1", title: "Message", doc, now: NOW }, { eventId: "e1", ts: NOW.toISOString() }))).not.toHaveProperty("summary");
  });

  it("shows the preview of the args themselves, not the preview the event carries", () => {
    const ev = approvalRequestedEvent(checked("plan"), { approvalId: "a1", title: "Message", doc, now: NOW }, { eventId: "e1", ts: NOW.toISOString() });
    const doctored = { ...ev, data: { ...ev.data, argsPreview: '{"customerId":"c2","text":"harmless"}' } };
    expect(pendingApprovalOf(doctored).argsPreview).toBe('{"customerId":"c1","text":"hi"}');
  });
});

describe("argsPreview", () => {
  it("shows canonical JSON and cuts long args to the preview size", () => {
    expect(argsPreview({ b: 1, a: [true, null] })).toBe('{"a":[true,null],"b":1}');
    const long = argsPreview({ text: "x".repeat(ARGS_PREVIEW_CHARS * 2) });
    expect(long.length).toBe(ARGS_PREVIEW_CHARS);
    expect(long.endsWith("…")).toBe(true);
  });
});
