import { describe, expect, it } from "vitest";
import type { ApprovalGranted } from "@warden/contracts/events";
import type { PolicyDocumentInput } from "@warden/contracts/policy";
import { defineTool } from "@warden/executor";
import { putPolicyDocument } from "@warden/policy";
import { callEvents, eventTypes, eventually } from "@warden/testing";
import { z } from "zod";
import { cardIn } from "../support/approval-cards.js";
import { usualPrincipals } from "../support/usual-principals.js";
import { useTestWarden } from "../support/use-test-warden.js";

/**
 * Quorum conditions over the real services: `approvalQuorum` entries matched by grade and by a
 * condition on the args ("a refund over 1000 needs two people"), read aloud on the card, counted
 * on the args that run (an edit over the threshold asks for a second person), and kept by session
 * grants (a session made under the threshold never covers a call over it).
 */
describe("approvals: quorum by grade and by a threshold on the args", () => {
  const paid: { customerId: string; amount: number }[] = [];
  const refund = defineTool({
    name: "pay.refund",
    version: "1.0.0",
    title: "Refund a customer",
    description: "Use when a customer is owed money back; it is paid out at once.",
    grade: "send",
    actionType: "purchase",
    openWorld: true,
    input: z.strictObject({ customerId: z.string(), amount: z.number().positive() }),
    handler: (args) => {
      paid.push(args);
      return { refunded: args.amount };
    },
  });
  const policy = (over: Partial<PolicyDocumentInput>): PolicyDocumentInput => ({
    version: "e2e-quorum-conditions",
    principals: {
      alice: { kind: "human", approves: ["send"] },
      bob: { kind: "human", approves: ["send"] },
      ...usualPrincipals("planner"),
    },
    sessionGrants: { grades: ["send"], maxTtlSeconds: 1800 },
    approvalQuorum: [{ id: "big-refunds", grade: "send", when: { arg: "amount", gt: 1000 }, approvers: 2, reason: "a refund over 1000 needs two people" }],
    ...over,
  });

  const t = useTestWarden({ policy: policy({}) }, async (w) => {
    await w.startExecutor("pay", [refund]);
    const planner = await w.agent("planner");
    const alice = await w.approver("alice");
    const bob = await w.approver("bob");
    return { planner, alice, bob };
  });

  const ask = (customerId: string, amount: number) => t.planner.call("pay.refund", { customerId, amount }, { mode: "plan" });
  const cardOf = (callId: string) => cardIn(t.alice, (a) => a.callId === callId);
  const settled = (callId: string) => t.planner.awaitCall(callId, "pay.refund", { timeoutMs: 10_000 });
  const paidTo = (customerId: string) => paid.filter((p) => p.customerId === customerId).map((p) => p.amount);

  it("asks two distinct people for a send over the threshold, saying why on the card", async () => {
    const r = await ask("C-big", 1500);
    const card = await cardOf(r.callId);
    expect(card).toMatchObject({ quorum: 2, quorumRule: { id: "big-refunds", reason: "a refund over 1000 needs two people (amount is 1500: amount > 1000)" } });
    expect(await t.alice.approve(card.approvalId, card.argsHash)).toMatchObject({ ok: true, quorum: { have: 1, need: 2 } });
    expect(eventTypes(await callEvents(t.w.bus, r.callId))).not.toContain("ApprovalGranted");
    expect(await t.bob.approve(card.approvalId, card.argsHash)).toMatchObject({ ok: true, quorum: { have: 2, need: 2 } });
    expect(await settled(r.callId)).toMatchObject({ ok: true, data: { refunded: 1500 } });
    expect(paidTo("C-big")).toEqual([1500]);
  });

  it("asks one person for a send under the threshold", async () => {
    const r = await ask("C-small", 900);
    const card = await cardOf(r.callId);
    expect(card).toMatchObject({ quorum: 1, quorumRule: { id: "default.quorum" } });
    expect(await t.alice.approve(card.approvalId, card.argsHash)).toMatchObject({ ok: true, decision: "grant" });
    expect(await settled(r.callId)).toMatchObject({ ok: true, data: { refunded: 900 } });
  });

  it("counts the args that run: an edit over the threshold needs a second person", async () => {
    const r = await ask("C-edit", 500);
    const card = await cardOf(r.callId);
    expect(card.quorum).toBe(1);
    const edited = { customerId: "C-edit", amount: 5000 };
    expect(await t.alice.approve(card.approvalId, card.argsHash, { args: edited })).toMatchObject({ ok: true, quorum: { have: 1, need: 2 } });
    expect(paidTo("C-edit")).toEqual([]);
    // the second person grants the edited args (the first's edit binds the rest)
    expect(await t.bob.approve(card.approvalId, card.argsHash, { args: edited })).toMatchObject({ ok: true, quorum: { have: 2, need: 2 } });
    expect(await settled(r.callId)).toMatchObject({ ok: true, data: { refunded: 5000 } });
    const grant = (await callEvents(t.w.bus, r.callId)).find((e): e is ApprovalGranted => e.type === "ApprovalGranted");
    expect(grant?.data.coApprovers).toEqual([expect.objectContaining({ approver: "alice" })]);
  });

  it("never lets a session made under the threshold cover a send over it", async () => {
    const first = await ask("C-session", 100);
    const card = await cardOf(first.callId);
    expect(await t.alice.approve(card.approvalId, card.argsHash, { session: { ttlSeconds: 600, args: { customerId: { equals: "C-session" } } } })).toMatchObject({ ok: true });
    expect(await settled(first.callId)).toMatchObject({ ok: true });
    // under the threshold: the session covers it, nobody is asked
    const second = await ask("C-session", 200);
    expect(await settled(second.callId)).toMatchObject({ ok: true, data: { refunded: 200 } });
    expect((await callEvents(t.w.bus, second.callId)).find((e): e is ApprovalGranted => e.type === "ApprovalGranted")?.data.bySession).toBeDefined();
    // over it: two people are asked again
    const big = await ask("C-session", 2000);
    const bigCard = await cardOf(big.callId);
    expect(bigCard).toMatchObject({ quorum: 2, quorumRule: { id: "big-refunds" } });
    await t.alice.deny(bigCard.approvalId, bigCard.argsHash, "too much for today");
    expect(paidTo("C-session")).toEqual([100, 200]);
  });

  it("asks two people for every send with the grade form, naming the entry by its index", async () => {
    expect(await putPolicyDocument(t.w.bus, policy({ version: "e2e-quorum-grade", approvalQuorum: [{ grade: "send", approvers: 2 }] }))).toMatchObject({ ok: true });
    // each service follows the document on its own: ask until a card is made under the new one
    const card = await eventually(async () => {
      const r = await ask("C-grade", 10);
      const c = await cardOf(r.callId);
      const current = c.policyVersion === "e2e-quorum-grade" && c.quorumRule?.id === "approvalQuorum[0]";
      if (!current) await t.alice.deny(c.approvalId, c.argsHash, "asked under the previous document");
      expect(current).toBe(true);
      return c;
    });
    expect(card).toMatchObject({ quorum: 2, quorumRule: { id: "approvalQuorum[0]", reason: "2 distinct approvers for grade send" } });
    expect(await t.alice.approve(card.approvalId, card.argsHash)).toMatchObject({ ok: true, quorum: { have: 1, need: 2 } });
    expect(await t.bob.approve(card.approvalId, card.argsHash)).toMatchObject({ ok: true, quorum: { have: 2, need: 2 } });
    expect(await settled(card.callId)).toMatchObject({ ok: true, data: { refunded: 10 } });
  });
});
