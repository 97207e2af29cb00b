import { describe, expect, it } from "vitest";
import { createAgentClient, createApproverClient, type ApproverClient } from "@warden/sdk";
import { readOutbox } from "@warden/example-support-desk";
import { callEvents, eventTypes, eventually } from "@warden/testing";
import { deskAlice, usualPrincipals } from "../support/usual-principals.js";
import { useTestWarden } from "../support/use-test-warden.js";

describe("approvals: send waits for a person, grants are bound and single-use", () => {
  const t = useTestWarden({
    demo: true,
    policy: {
      version: "e2e-approvals",
      principals: {
        alice: deskAlice(),
        ...usualPrincipals("bob", "planner"),
        "support-bot": { kind: "agent", approves: ["send"] },
      },
      llm: { showWrite: ["ticket.fill", "ticket.submit"] },
      approvalTtlSeconds: { write: 3600, send: 3600 },
    },
  }, async (w) => {
    // every caller and approver connects as itself; the admin connection only reads the stream and the outbox
    const planner = await w.agent("planner");
    const alice = await w.approver("alice");
    const bob = await w.approver("bob");
    const botBus = await w.agentBus("support-bot");
    return { planner, alice, bob, botBus };
  });

  const message = (text: string) => ({ customerId: `C-${text}`, text });
  const pendingOf = async (client: ApproverClient) => {
    const r = await client.pending();
    if (!r.ok) throw new Error(r.error.message);
    return r.value;
  };

  it("holds a send in plan mode with requiresConfirm and sends nothing until a human grants, then sends once", async () => {
    const args = message("grant");
    const pending = await t.planner.call("customer.message", args, { mode: "plan" });
    expect(pending).toMatchObject({ ok: false, status: "awaiting_approval", requiresConfirm: true });
    expect((await readOutbox(t.w.bus)).filter((m) => m.customerId === args.customerId)).toHaveLength(0);

    const inbox = await pendingOf(t.alice);
    const item = inbox.find((p) => p.approvalId === pending.approvalId);
    expect(item).toMatchObject({ tool: "customer.message", grade: "send", principal: "planner" });
    const reply = await t.alice.approve(item!.approvalId, item!.argsHash);
    expect(reply).toMatchObject({ ok: true, decision: "grant" });

    await eventually(async () => {
      expect(eventTypes(await callEvents(t.w.bus, pending.callId))).toContain("ToolCallFinished");
    });
    expect((await readOutbox(t.w.bus)).filter((m) => m.customerId === args.customerId)).toHaveLength(1);

    const replay = await t.alice.approve(item!.approvalId, item!.argsHash);
    expect(replay).toMatchObject({ ok: false, refusal: "ALREADY_DECIDED" });
    await new Promise((r) => setTimeout(r, 300));
    expect((await readOutbox(t.w.bus)).filter((m) => m.customerId === args.customerId)).toHaveLength(1);
  });

  it("refuses a grant from an agent, from a person without the grade, and for args the approver did not see", async () => {
    const pending = await t.planner.call("customer.message", message("refuse"), { mode: "plan" });
    const id = pending.approvalId!;
    // the inbox is read from the stream: on a loaded machine the request may take a moment to be listed
    const hash = await eventually(async () => {
      const found = (await pendingOf(t.alice)).find((p) => p.approvalId === id);
      expect(found).toBeDefined();
      return found!.argsHash;
    });
    // an agent's credentials may not decide at all, even one the policy lists with `approves`
    // (the server refuses the request), nor decide in someone else's name
    const bot = createApproverClient({ bus: t.botBus, approver: "support-bot" });
    expect(await bot.approve(id, hash)).toMatchObject({ ok: false, refusal: "NOT_AUTHORISED" });
    expect(await createApproverClient({ bus: t.botBus, approver: "alice" }).approve(id, hash)).toMatchObject({ ok: false, refusal: "NOT_AUTHORISED" });
    expect(await bot.pending()).toMatchObject({ ok: false, error: { code: "FORBIDDEN" } });
    // a person may decide only as themself, and only the grades the policy gives them
    expect(await t.bob.approve(id, hash)).toMatchObject({ ok: false, refusal: "NOT_AUTHORISED" });
    expect(await createApproverClient({ bus: await t.w.humanBus("bob"), approver: "alice" }).approve(id, hash)).toMatchObject({ ok: false, refusal: "NOT_AUTHORISED" });
    const otherHash = `sha256:${"0".repeat(64)}`;
    expect(await t.alice.approve(id, otherHash)).toMatchObject({ ok: false, refusal: "ARGS_HASH_MISMATCH" });
    expect(await t.alice.approve("nope", hash)).toMatchObject({ ok: false, refusal: "UNKNOWN_APPROVAL" });
    expect(eventTypes(await callEvents(t.w.bus, pending.callId))).not.toContain("ApprovalGranted");
  });

  it("brings a denial's reason back to a waiting caller", async () => {
    const args = message("deny");
    const waiting = t.planner.call("customer.message", args, { mode: "plan", wait: true, timeoutMs: 10_000 });
    const item = await eventually(async () => {
      const found = (await pendingOf(t.alice)).find((p) => p.argsPreview.includes("C-deny"));
      expect(found).toBeDefined();
      return found!;
    });
    expect(await t.alice.deny(item.approvalId, item.argsHash, "tone is wrong, rephrase")).toMatchObject({ ok: true, decision: "deny" });
    const r = await waiting;
    expect(r).toMatchObject({ ok: false, status: "denied", error: { code: "APPROVAL_DENIED" } });
    expect(r.error?.message).toContain("tone is wrong, rephrase");
    expect((await readOutbox(t.w.bus)).filter((m) => m.customerId === args.customerId)).toHaveLength(0);
    // the approver keeps what each person decided: alice's Decided list has it, with her reason; bob's does not
    const mine = await t.alice.decided();
    expect(mine.ok && mine.value.find((d) => d.approvalId === item.approvalId)).toMatchObject({
      callId: r.callId,
      outcome: "denied",
      decidedBy: "alice",
      reason: "tone is wrong, rephrase",
      principal: "planner",
      tool: "customer.message",
    });
    const bobs = await t.bob.decided();
    expect(bobs.ok && bobs.value.some((d) => d.approvalId === item.approvalId)).toBe(false);
  });

  it("lets a person confirm their own send in human mode", async () => {
    // bob approves no grade for others, yet confirms a send he asked for himself
    const caller = await t.w.person("bob");
    const args = message("self");
    const pending = await caller.call("customer.message", args, { mode: "human" });
    expect(pending).toMatchObject({ status: "awaiting_approval", requiresConfirm: true });
    const hash = (await pendingOf(t.bob)).find((p) => p.approvalId === pending.approvalId)!.argsHash;
    expect(await t.bob.approve(pending.approvalId!, hash)).toMatchObject({ ok: true });
    await eventually(async () => {
      expect((await readOutbox(t.w.bus)).filter((m) => m.customerId === args.customerId)).toHaveLength(1);
    });
  });

  it("holds a model's write for a person and runs it once granted", async () => {
    const bot = createAgentClient({ bus: t.botBus, principal: "support-bot" });
    const r = await bot.call("ticket.submit", { title: "t", body: "b", customerId: "C-9" }, { mode: "llm" });
    expect(r.status).toBe("awaiting_approval");
    const item = (await pendingOf(t.alice)).find((p) => p.approvalId === r.approvalId)!;
    expect(item.grade).toBe("write");
    expect(await t.alice.approve(item.approvalId, item.argsHash)).toMatchObject({ ok: true });
    await eventually(async () => {
      const finished = (await callEvents(t.w.bus, r.callId)).find((e) => e.type === "ToolCallFinished");
      expect(finished?.type === "ToolCallFinished" && finished.data.ok).toBe(true);
    });
  });
});

// its own Warden: a send's approval lasts 1 s here, which a loaded machine could let run out
// under the tests above, whose sends wait for a person's decision
describe("approvals: an undecided send expires", () => {
  const e = useTestWarden({
    demo: true,
    policy: { version: "e2e-approvals-expiry", principals: { alice: deskAlice(), ...usualPrincipals("planner") }, approvalTtlSeconds: { write: 3600, send: 1 } },
  }, async (w) => ({ planner: await w.agent("planner"), alice: await w.approver("alice") }));
  const message = (text: string) => ({ customerId: `C-${text}`, text });

  it("expires an undecided send and refuses a late grant", async () => {
    const pending = await e.planner.call("customer.message", message("late"), { mode: "plan" });
    await eventually(async () => {
      expect(eventTypes(await callEvents(e.w.bus, pending.callId))).toContain("ApprovalExpired");
    });
    const hash = (await callEvents(e.w.bus, pending.callId)).find((ev) => ev.type === "ApprovalRequested");
    const argsHash = hash?.type === "ApprovalRequested" ? hash.data.argsHash : "";
    expect(await e.alice.approve(pending.approvalId!, argsHash)).toMatchObject({ ok: false, refusal: "EXPIRED" });
  });
});
