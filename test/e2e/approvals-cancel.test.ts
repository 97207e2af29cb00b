import { describe, expect, it } from "vitest";
import { appendEvent } from "@warden/bus";
import { nextCallEvent, stampNow, type ToolCallRequested } from "@warden/contracts/events";
import { BUCKET_APPROVALS, consumerName, STREAM_CALLS } from "@warden/contracts/subjects";
import { defineTool } from "@warden/executor";
import { z } from "zod";
import { readOutbox } from "@warden/example-support-desk";
import { createAgentClient } from "@warden/sdk";
import { callEvents, eventTypes, eventually } from "@warden/testing";
import { cardIn } from "../support/approval-cards.js";
import { usualPrincipals } from "../support/usual-principals.js";
import { useTestWarden } from "../support/use-test-warden.js";

/** Cancel: a call that has not started is stopped for good, by its requester or an operator only. */
describe("approvals: cancelling a call before it starts", () => {
  const t = useTestWarden({
    demo: true,
    policy: {
      version: "e2e-cancel",
      principals: usualPrincipals("alice", "bob", "olga", "planner"),
      llm: { showWrite: ["notes.write"] },
    },
  }, async (w) => ({
    planner: await w.agent("planner"),
    alice: await w.approver("alice"),
  }));

  const send = (customerId: string) => t.planner.call("customer.message", { customerId, text: "hello" }, { mode: "plan" });

  it("cancels a call waiting for approval: its waiter is told, nobody can approve it, it never runs, and a late start is refused by the server", async () => {
    const r = await send("C-cancel");
    expect(r.status).toBe("awaiting_approval");
    const waiter = t.planner.awaitCall(r.callId, "customer.message", { timeoutMs: 10_000 });
    const cancelled = await t.planner.cancel(r.callId, "the customer called back");
    expect(cancelled).toMatchObject({ ok: true, callId: r.callId, domain: "customer", by: "planner" });
    expect(await waiter).toMatchObject({ ok: false, status: "cancelled", error: { code: "CANCELLED" } });

    const pending = await t.alice.pending();
    expect(pending.ok && pending.value.some((p) => p.callId === r.callId)).toBe(false);
    const late = await t.alice.approve(r.approvalId!, "sha256:" + "0".repeat(64));
    expect(late).toMatchObject({ ok: false, decided: { decision: "cancel", by: "planner" } });
    expect(late.ok ? "" : late.message).toMatch(/^the call was cancelled by planner at /);

    // an executor that tries to start it anyway meets the cancel in the claim slot: the server keeps the first
    const request = (await callEvents(t.w.bus, r.callId)).find((e): e is ToolCallRequested => e.type === "ToolCallRequested")!;
    const executorBus = await t.w.nats.connectAs({ kind: "executor", name: "late-executor", domains: ["customer"] });
    const started = nextCallEvent(request, "ToolCallStarted", {
      executorId: "late-executor",
      version: "1.0.0",
      descriptorHash: `sha256:${"a".repeat(64)}`,
      argsHash: `sha256:${"b".repeat(64)}`,
      authorizedBy: { type: "ApprovalGranted", eventId: "none" },
      deadline: new Date(Date.now() + 60_000).toISOString(),
    }, stampNow());
    const claim = await appendEvent(executorBus, started);
    expect(claim).toMatchObject({ status: "already_written", existing: { type: "ToolCallCancelled" } });

    const types = eventTypes(await callEvents(t.w.bus, r.callId));
    expect(types).toContain("ToolCallCancelled");
    expect(types).not.toContain("ToolCallStarted");
    expect(types).not.toContain("ApprovalGranted");
    expect((await readOutbox(t.w.bus)).filter((m) => m.customerId === "C-cancel")).toHaveLength(0);
    // a second cancel answers the first
    expect(await t.planner.cancel(r.callId)).toMatchObject({ ok: true, by: "planner" });
    // the projected approval inbox closes it too
    const inbox = await t.w.bus.kvm.open(BUCKET_APPROVALS);
    await eventually(async () => expect((await inbox.get(r.approvalId!))?.json<{ status: string; decidedBy?: string }>()).toMatchObject({ status: "cancelled", decidedBy: "planner" }));
  });

  it("lets an operator cancel another principal's call, and refuses anyone else", async () => {
    const r = await send("C-op");
    const bob = await t.w.person("bob");
    const refused = await bob.cancel(r.callId);
    expect(refused).toMatchObject({ ok: false, refusal: "NOT_AUTHORISED" });
    // nobody may cancel in another's name: the server refuses the subject
    const asOlga = createAgentClient({ bus: await t.w.humanBus("bob"), principal: "olga" });
    expect(await asOlga.cancel(r.callId)).toMatchObject({ ok: false, refusal: "NOT_AUTHORISED" });
    const olga = await t.w.person("olga");
    expect(await olga.cancel(r.callId, "runaway plan")).toMatchObject({ ok: true, by: "olga" });
    const cancel = (await callEvents(t.w.bus, r.callId)).find((e) => e.type === "ToolCallCancelled");
    expect(cancel?.type === "ToolCallCancelled" && cancel.data).toEqual({ by: "olga", as: "operator", reason: "runaway plan", approvalId: r.approvalId });
  });

  it("revokes an unused grant: the granting person stops the call, and its executor, back up, never runs it", async () => {
    let runs = 0;
    const tool = defineTool({
      name: "notes.write",
      version: "1.0.0",
      title: "Write a note",
      description: "Use when testing a grant that is revoked before it is used.",
      grade: "write",
      idempotent: false,
      timeoutMs: 3_000,
      input: z.strictObject({ n: z.int() }),
      handler: async ({ n }) => {
        runs += 1;
        return { n };
      },
    });
    const start = () => t.w.startExecutor("notes", [tool]);
    // registered, then down: a grant waits for it unused
    await (await start()).stop();
    const r = await t.planner.call("notes.write", { n: 1 }, { mode: "llm" });
    expect(r.status).toBe("awaiting_approval");
    const card = await cardIn(t.alice, (a) => a.callId === r.callId);
    expect(await t.alice.approve(card.approvalId, card.argsHash)).toMatchObject({ ok: true });
    const bob = await t.w.person("bob");
    expect(await bob.cancel(r.callId)).toMatchObject({ ok: false, refusal: "NOT_AUTHORISED" });
    const aliceAsCaller = await t.w.person("alice");
    expect(await aliceAsCaller.cancel(r.callId, "wrong note")).toMatchObject({ ok: true, by: "alice" });

    t.w.track(await start());
    // the executor takes the grant from its durable and meets the revoke in the claim slot
    await eventually(async () => {
      const info = await t.w.bus.jsm.consumers.info(STREAM_CALLS, consumerName("executor-granted", "notes"));
      expect(info.num_pending + info.num_ack_pending).toBe(0);
      expect(info.delivered.stream_seq).toBeGreaterThan(0);
    });
    const events = await callEvents(t.w.bus, r.callId);
    expect(eventTypes(events)).toEqual(expect.arrayContaining(["ApprovalGranted", "ToolCallCancelled"]));
    expect(eventTypes(events)).not.toContain("ToolCallStarted");
    const cancel = events.find((e) => e.type === "ToolCallCancelled");
    expect(cancel?.type === "ToolCallCancelled" && cancel.data).toEqual({ by: "alice", as: "approver", reason: "wrong note", approvalId: card.approvalId });
    expect(runs).toBe(0);
  });

  it("refuses to cancel a call that already ended", async () => {
    const r = await send("C-done");
    const card = await cardIn(t.alice, (a) => a.callId === r.callId);
    await t.alice.approve(card.approvalId, card.argsHash);
    await eventually(async () => expect(eventTypes(await callEvents(t.w.bus, r.callId))).toContain("ToolCallFinished"));
    const late = await t.planner.cancel(r.callId);
    expect(late).toMatchObject({ ok: false, refusal: "ALREADY_ENDED" });
    expect(await t.planner.cancel("no-such-call")).toMatchObject({ ok: false, refusal: "NOT_FOUND" });
  });
});
