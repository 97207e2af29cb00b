import { describe, expect, it } from "vitest";
import type { PolicyDocumentInput } from "@warden/contracts/policy";
import type { SubagentDescriptorInput } from "@warden/subagent";
import { cardIn } from "../support/approval-cards.js";
import { outputOf, SUBAGENT_TEST_POLICY, useSubagentWarden } from "./subagent-fixture.js";

const FILER: SubagentDescriptorInput = {
  name: "agent.filer",
  title: "Filer",
  description: "Use when a support question needs a ticket filed for a person to look at.",
  instructions: "You file tickets for a support desk.",
  model: "m-filer",
  allowedTools: ["ticket.submit"],
};

/** A subagent's call on a person's behalf: the card names the person and the chain, and that person may not approve it. */
describe("approvals: a delegated call's card and separation of duties", () => {
  const policy: PolicyDocumentInput = { ...SUBAGENT_TEST_POLICY, principals: { ...SUBAGENT_TEST_POLICY.principals, carol: { kind: "human", approves: ["write"] } } };
  const s = useSubagentWarden([FILER], { policy }, async ({ w }) => ({ alice: await w.approver("alice"), carol: await w.approver("carol") }));

  it("shows 'alice via agent.filer' with the delegated task as intent, refuses alice's own grant and takes carol's", async () => {
    const ticket = { title: "Blender", body: "Refund asked twice", customerId: "C-chain" };
    s.model.script("m-filer", [{ toolCalls: [{ name: "ticket__submit", arguments: ticket }] }, { content: "Proposed." }]);
    const asAlice = await s.w.person("alice", { timeoutMs: 20_000 });
    const delegating = await asAlice.call("agent.filer", { task: "file a refund ticket for C-chain" }, { mode: "human" });
    const child = outputOf(delegating).childCalls[0];
    expect(child).toMatchObject({ tool: "ticket.submit", status: "awaiting_approval" });

    const card = await cardIn(s.carol, (p) => p.approvalId === child?.approvalId);
    expect(card).toMatchObject({
      principal: "agent-filer",
      mode: "llm",
      onBehalfOf: "alice via agent.filer",
      chain: [{ principal: "alice", tool: "agent.filer", callId: delegating.callId, mode: "human" }],
      intent: { goal: "file a refund ticket for C-chain" },
    });
    expect(card.deciders).toContain("carol");
    expect(card.deciders).not.toContain("alice");
    expect(card.riskReasons).toEqual(expect.arrayContaining([expect.stringMatching(/^delegated/), expect.stringMatching(/model chose/)]));

    // alice started the task: she may not approve what her subagent asks, and does not see it to decide
    const own = await s.alice.approve(card.approvalId, card.argsHash);
    expect(own).toMatchObject({ ok: false, refusal: "NOT_AUTHORISED" });
    expect(own.ok ? "" : own.message).toMatch(/alice delegated the task/);
    const hers = await s.alice.pending();
    expect(hers.ok && hers.value.some((p) => p.approvalId === card.approvalId)).toBe(false);
    expect(await s.carol.approve(card.approvalId, card.argsHash)).toMatchObject({ ok: true, decision: "grant" });
  });
});
