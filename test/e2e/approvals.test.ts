import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgentClient, createApproverClient, type AgentClient, type ApproverClient } from "@warden/sdk";
import { readOutbox } from "@warden/example-support-desk";
import { eventually } from "../support/eventually.js";
import { callEvents, eventTypes } from "../support/events.js";
import { startTestWarden, type TestWarden } from "../support/warden.js";

describe("approvals: send waits for a person, grants are bound, single-use and expire", () => {
  let w: TestWarden;
  let planner: AgentClient;
  beforeAll(async () => {
    w = await startTestWarden({
      demo: true,
      policy: {
        version: "e2e-approvals",
        principals: {
          alice: { kind: "human", approves: ["write", "send"], scopes: ["tickets:write"] },
          bob: { kind: "human" },
          "support-bot": { kind: "agent", approves: ["send"] },
          planner: { kind: "agent" },
        },
        llm: { showWrite: ["ticket.fill"] },
        approvalTtlSeconds: { write: 3600, send: 1 },
        rules: [],
        budgets: {},
      },
    });
    planner = createAgentClient({ bus: w.bus, principal: "planner" });
  });
  afterAll(async () => w.stop());

  const message = (text: string) => ({ customerId: `C-${text}`, text });
  const pendingOf = async (client: ApproverClient) => {
    const r = await client.pending();
    if (!r.ok) throw new Error(r.error.message);
    return r.value;
  };

  it("holds a send in plan mode with requiresConfirm and sends nothing until a human grants, then sends once", async () => {
    const args = message("grant");
    const pending = await planner.call("customer.message", args, { mode: "plan" });
    expect(pending).toMatchObject({ ok: false, status: "awaiting_approval", requiresConfirm: true });
    expect((await readOutbox(w.bus)).filter((m) => m.customerId === args.customerId)).toHaveLength(0);

    const alice = createApproverClient({ bus: w.bus, approver: "alice" });
    const inbox = await pendingOf(alice);
    const item = inbox.find((p) => p.approvalId === pending.approvalId);
    expect(item).toMatchObject({ tool: "customer.message", grade: "send", principal: "planner" });
    const reply = await alice.approve(item!.approvalId, item!.argsHash);
    expect(reply).toMatchObject({ ok: true, decision: "grant" });

    await eventually(async () => {
      expect(eventTypes(await callEvents(w.bus, pending.callId))).toContain("ToolCallFinished");
    });
    expect((await readOutbox(w.bus)).filter((m) => m.customerId === args.customerId)).toHaveLength(1);

    const replay = await alice.approve(item!.approvalId, item!.argsHash);
    expect(replay).toMatchObject({ ok: false, refusal: "ALREADY_DECIDED" });
    await new Promise((r) => setTimeout(r, 300));
    expect((await readOutbox(w.bus)).filter((m) => m.customerId === args.customerId)).toHaveLength(1);
  });

  it("refuses a grant from an agent, from a person without the grade, and for args the approver did not see", async () => {
    const pending = await planner.call("customer.message", message("refuse"), { mode: "plan" });
    const id = pending.approvalId!;
    const inbox = await pendingOf(createApproverClient({ bus: w.bus, approver: "alice" }));
    const hash = inbox.find((p) => p.approvalId === id)!.argsHash;
    expect(await createApproverClient({ bus: w.bus, approver: "support-bot" }).approve(id, hash)).toMatchObject({ ok: false, refusal: "NOT_AUTHORISED" });
    expect(await createApproverClient({ bus: w.bus, approver: "bob" }).approve(id, hash)).toMatchObject({ ok: false, refusal: "NOT_AUTHORISED" });
    expect(await createApproverClient({ bus: w.bus, approver: "planner" }).approve(id, hash)).toMatchObject({ ok: false, refusal: "NOT_AUTHORISED" });
    const otherHash = `sha256:${"0".repeat(64)}`;
    expect(await createApproverClient({ bus: w.bus, approver: "alice" }).approve(id, otherHash)).toMatchObject({ ok: false, refusal: "ARGS_HASH_MISMATCH" });
    expect(await createApproverClient({ bus: w.bus, approver: "alice" }).approve("nope", hash)).toMatchObject({ ok: false, refusal: "UNKNOWN_APPROVAL" });
    expect(eventTypes(await callEvents(w.bus, pending.callId))).not.toContain("ApprovalGranted");
  });

  it("brings a denial's reason back to a waiting caller", async () => {
    const args = message("deny");
    const waiting = planner.call("customer.message", args, { mode: "plan", wait: true, timeoutMs: 10_000 });
    const alice = createApproverClient({ bus: w.bus, approver: "alice" });
    const item = await eventually(async () => {
      const found = (await pendingOf(alice)).find((p) => p.argsPreview.includes("C-deny"));
      expect(found).toBeDefined();
      return found!;
    });
    expect(await alice.deny(item.approvalId, item.argsHash, "tone is wrong, rephrase")).toMatchObject({ ok: true, decision: "deny" });
    const r = await waiting;
    expect(r).toMatchObject({ ok: false, status: "denied", error: { code: "APPROVAL_DENIED" } });
    expect(r.error?.message).toContain("tone is wrong, rephrase");
    expect((await readOutbox(w.bus)).filter((m) => m.customerId === args.customerId)).toHaveLength(0);
  });

  it("expires an undecided send and refuses a late grant", async () => {
    const pending = await planner.call("customer.message", message("late"), { mode: "plan" });
    await eventually(async () => {
      expect(eventTypes(await callEvents(w.bus, pending.callId))).toContain("ApprovalExpired");
    });
    const alice = createApproverClient({ bus: w.bus, approver: "alice" });
    const hash = (await callEvents(w.bus, pending.callId)).find((e) => e.type === "ApprovalRequested");
    const argsHash = hash?.type === "ApprovalRequested" ? hash.data.argsHash : "";
    expect(await alice.approve(pending.approvalId!, argsHash)).toMatchObject({ ok: false, refusal: "EXPIRED" });
  });

  it("lets a person confirm their own send in human mode", async () => {
    const alice = createAgentClient({ bus: w.bus, principal: "bob" });
    const args = message("self");
    const pending = await alice.call("customer.message", args, { mode: "human" });
    expect(pending).toMatchObject({ status: "awaiting_approval", requiresConfirm: true });
    const hash = (await pendingOf(createApproverClient({ bus: w.bus, approver: "bob" }))).find((p) => p.approvalId === pending.approvalId)!.argsHash;
    expect(await createApproverClient({ bus: w.bus, approver: "bob" }).approve(pending.approvalId!, hash)).toMatchObject({ ok: true });
    await eventually(async () => {
      expect((await readOutbox(w.bus)).filter((m) => m.customerId === args.customerId)).toHaveLength(1);
    });
  });

  it("holds a model's write for a person and runs it once granted", async () => {
    const bot = createAgentClient({ bus: w.bus, principal: "support-bot" });
    const r = await bot.call("ticket.submit", { title: "t", body: "b", customerId: "C-9" }, { mode: "llm" });
    expect(r.status).toBe("awaiting_approval");
    const alice = createApproverClient({ bus: w.bus, approver: "alice" });
    const item = (await pendingOf(alice)).find((p) => p.approvalId === r.approvalId)!;
    expect(item.grade).toBe("write");
    expect(await alice.approve(item.approvalId, item.argsHash)).toMatchObject({ ok: true });
    await eventually(async () => {
      const finished = (await callEvents(w.bus, r.callId)).find((e) => e.type === "ToolCallFinished");
      expect(finished?.type === "ToolCallFinished" && finished.data.ok).toBe(true);
    });
  });
});
