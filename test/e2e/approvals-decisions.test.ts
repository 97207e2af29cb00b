import { describe, expect, it } from "vitest";
import { toModelMessage } from "@warden/contracts/events";
import { argsHash } from "@warden/contracts/json";
import { readOutbox } from "@warden/example-support-desk";
import { type ApproverClient } from "@warden/sdk";
import { callEvents, eventTypes, eventually } from "@warden/testing";
import { cardIn } from "../support/approval-cards.js";
import { deskAlice, usualPrincipals } from "../support/usual-principals.js";
import { useTestWarden } from "../support/use-test-warden.js";

/**
 * The decisions a person needs, over the real services: the card they decide on, a denial whose
 * reason reaches the model, a grant of edited args, a two-person quorum, and the answer a late or
 * second decision gets.
 */
describe("approvals: the card, and deny, edit, quorum and late decisions", () => {
  const t = useTestWarden({
    demo: true,
    policy: {
      version: "e2e-approval-decisions",
      principals: {
        alice: deskAlice(),
        bob: { kind: "human", approves: ["write", "send"] },
        carol: { kind: "human", approves: ["write", "send"], scopes: ["tickets:write"] },
        ...usualPrincipals("planner"),
      },
      llm: { showWrite: ["ticket.submit"] },
      // two distinct people for a ticket submission; a message to a customer needs one
      approvalQuorum: [{ tool: "ticket.submit", approvers: 2 }],
    },
  }, async (w) => ({
    planner: await w.agent("planner"),
    alice: await w.approver("alice"),
    bob: await w.approver("bob"),
    carol: await w.approver("carol"),
  }));

  const cardOf = (client: ApproverClient, approvalId: string | undefined) => cardIn(client, (p) => p.approvalId === approvalId);
  const outboxOf = async (customerId: string) => (await readOutbox(t.w.bus)).filter((m) => m.customerId === customerId);

  it("shows the card: title, description, grade, flags, full args, intent, requester, rule, risk reasons, expiry and who may decide", async () => {
    const args = { customerId: "C-card", text: "Your refund of 40 EUR was sent today." };
    const intent = { goal: "close ticket T-7 about a late refund", rationale: "the refund went out; the customer asked twice", expectedEffect: "one email to C-card" };
    const r = await t.planner.call("customer.message", args, { mode: "plan", intent });
    expect(r.status).toBe("awaiting_approval");
    const card = await cardOf(t.alice, r.approvalId);
    expect(card).toMatchObject({
      tool: "customer.message",
      title: "Send a message to a customer",
      grade: "send",
      flags: { openWorld: true, destructive: false, idempotent: false },
      args,
      intent,
      principal: "planner",
      onBehalfOf: "planner",
      chain: [],
      quorum: 1,
      deciders: ["alice", "bob", "carol"],
      approvers: { human: true, requesterMayConfirm: false },
    });
    expect(card.description).toMatch(/customer/i);
    expect(card.ruleIds?.length).toBeGreaterThan(0);
    expect(card.policyVersion).toBe("e2e-approval-decisions");
    expect(card.riskReasons).toEqual(expect.arrayContaining([expect.stringMatching(/^send:/), expect.stringMatching(/^open world/), expect.stringMatching(/^not idempotent/)]));
    // the request and the card carry the same intent, and the event on the stream is the card's source
    const events = await callEvents(t.w.bus, r.callId);
    const requested = events.find((e) => e.type === "ToolCallRequested");
    expect(requested?.type === "ToolCallRequested" && requested.data.intent).toEqual(intent);
    const onStream = events.find((e) => e.type === "ApprovalRequested");
    expect(onStream?.type === "ApprovalRequested" && onStream.data.intent).toEqual(intent);
    await t.alice.deny(card.approvalId, card.argsHash, "not today");
  });

  it("refuses an oversize intent before anything is sent, naming the field and its bound", async () => {
    const r = await t.planner.call("customer.message", { customerId: "C-big", text: "hi" }, { mode: "plan", intent: { goal: "x".repeat(301) } });
    expect(r).toMatchObject({ ok: false, status: "rejected", error: { code: "INVALID_REQUEST" } });
    expect(r.error?.message).toContain("intent.goal is at most 300 characters");
  });

  it("brings a denial's reason to the model in the result's message", async () => {
    const args = { customerId: "C-deny2", text: "We cannot help." };
    const waiting = t.planner.call("customer.message", args, { mode: "plan", wait: true, timeoutMs: 15_000 });
    const card = await cardIn(t.alice, (p) => p.argsPreview.includes("C-deny2"));
    expect(await t.alice.deny(card.approvalId, card.argsHash, "too curt: apologise and offer a callback")).toMatchObject({ ok: true, decision: "deny" });
    const result = await waiting;
    expect(result).toMatchObject({ ok: false, status: "denied", error: { code: "APPROVAL_DENIED" } });
    expect(toModelMessage(result)).toContain("too curt: apologise and offer a callback");
    expect(await outboxOf("C-deny2")).toHaveLength(0);
  });

  it("runs the args an approver edited, keeps the original on the request and records the edit on the grant", async () => {
    const original = { customerId: "C-edit", text: "ur refund is done lol" };
    const edited = { customerId: "C-edit", text: "Your refund has been processed." };
    const r = await t.planner.call("customer.message", original, { mode: "plan" });
    const card = await cardOf(t.alice, r.approvalId);
    // edited args that do not fit the tool's schema are refused, and nothing is granted
    const bad = await t.alice.approve(card.approvalId, card.argsHash, { args: { customerId: "C-edit", text: "" } });
    expect(bad).toMatchObject({ ok: false, refusal: "INVALID_ARGS" });
    expect(bad.ok ? "" : bad.message).toMatch(/\/text/);
    const granted = await t.alice.approve(card.approvalId, card.argsHash, { args: edited });
    expect(granted).toMatchObject({ ok: true, decision: "grant", argsHash: argsHash(edited) });

    await eventually(async () => expect(eventTypes(await callEvents(t.w.bus, r.callId))).toContain("ToolCallFinished"));
    expect((await outboxOf("C-edit")).map((m) => m.text)).toEqual([edited.text]);
    const events = await callEvents(t.w.bus, r.callId);
    const find = <T extends string>(type: T) => events.find((e) => e.type === type);
    const requested = find("ToolCallRequested");
    const approval = find("ApprovalRequested");
    const grant = find("ApprovalGranted");
    const started = find("ToolCallStarted");
    expect(requested?.type === "ToolCallRequested" && requested.data.args).toEqual(original);
    expect(approval?.type === "ApprovalRequested" && approval.data.argsHash).toBe(argsHash(original));
    expect(grant?.type === "ApprovalGranted" && grant.data).toMatchObject({ argsHash: argsHash(edited), edit: { args: edited, originalArgsHash: argsHash(original) } });
    expect(started?.type === "ToolCallStarted" && started.data.argsHash).toBe(argsHash(edited));
    const finished = find("ToolCallFinished");
    expect(finished?.type === "ToolCallFinished" && finished.data.ok).toBe(true);
  });

  it("needs two distinct approvers where the policy asks a quorum: one grant is not enough, the same person twice is refused, a second person completes it", async () => {
    const ticket = { title: "Refund", body: "Customer C-q wants 40 EUR back", customerId: "C-q" };
    const r = await t.planner.call("ticket.submit", ticket, { mode: "llm" });
    expect(r.status).toBe("awaiting_approval");
    const card = await cardOf(t.alice, r.approvalId);
    expect(card.quorum).toBe(2);

    expect(await t.alice.approve(card.approvalId, card.argsHash)).toMatchObject({ ok: true, decision: "grant", quorum: { have: 1, need: 2 } });
    // one grant is not enough: nothing is granted or started, and the card stays pending with alice's grant on it
    const again = await cardOf(t.carol, r.approvalId);
    expect(again.grantedBy).toEqual([expect.objectContaining({ approver: "alice" })]);
    expect(eventTypes(await callEvents(t.w.bus, r.callId))).not.toContain("ApprovalGranted");
    const twice = await t.alice.approve(card.approvalId, card.argsHash);
    expect(twice).toMatchObject({ ok: false, refusal: "ALREADY_DECIDED" });
    expect(twice.ok ? "" : twice.message).toMatch(/you already granted this at .*1 more/);

    expect(await t.carol.approve(card.approvalId, card.argsHash)).toMatchObject({ ok: true, decision: "grant", quorum: { have: 2, need: 2 } });
    await eventually(async () => {
      const finished = (await callEvents(t.w.bus, r.callId)).find((e) => e.type === "ToolCallFinished");
      expect(finished?.type === "ToolCallFinished" && finished.data.ok).toBe(true);
    });
    const grant = (await callEvents(t.w.bus, r.callId)).find((e) => e.type === "ApprovalGranted");
    expect(grant?.type === "ApprovalGranted" && grant.data).toMatchObject({ approver: "carol", coApprovers: [expect.objectContaining({ approver: "alice" })] });
  });

  it("never lets the requester grant its own call, even a person the policy lets approve writes", async () => {
    const requester = await t.w.person("bob");
    // a write asked in llm mode waits for people; bob is one of the approvers the document names
    const asked = await requester.call("ticket.submit", { title: "Own", body: "bob asks", customerId: "C-own" }, { mode: "llm" });
    expect(asked.status).toBe("awaiting_approval");
    const card = await cardOf(t.alice, asked.approvalId);
    const own = await t.bob.approve(card.approvalId, card.argsHash);
    expect(own).toMatchObject({ ok: false, refusal: "NOT_AUTHORISED" });
    expect(own.ok ? "" : own.message).toMatch(/bob requested this call/);
    await t.alice.deny(card.approvalId, card.argsHash, "not needed");
  });

  it("answers a second or late decision with who decided and when", async () => {
    const r = await t.planner.call("customer.message", { customerId: "C-late", text: "Hello" }, { mode: "plan" });
    const card = await cardOf(t.alice, r.approvalId);
    expect(await t.alice.approve(card.approvalId, card.argsHash)).toMatchObject({ ok: true });
    const late = await t.bob.deny(card.approvalId, card.argsHash, "too late");
    expect(late).toMatchObject({ ok: false, refusal: "ALREADY_DECIDED", decided: { decision: "grant", by: "alice" } });
    expect(late.ok ? "" : late.message).toMatch(/^the approval was already granted by alice at \d{4}-\d\d-\d\dT/);
    await eventually(async () => expect(await outboxOf("C-late")).toHaveLength(1));
  });
});
