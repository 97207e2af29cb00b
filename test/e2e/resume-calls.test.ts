import { describe, expect, it } from "vitest";
import { readOutbox } from "@warden/example-support-desk";
import { STREAM_CALLS } from "@warden/contracts/subjects";
import { eventually } from "@warden/testing";
import { usualPrincipals } from "../support/usual-principals.js";
import { useTestWarden } from "../support/use-test-warden.js";

describe("an agent resumes its calls: idempotency keys and results by call id", () => {
  const t = useTestWarden({
    demo: true,
    policy: {
      version: "e2e-resume",
      principals: usualPrincipals("alice", "planner"),
      approvalTtlSeconds: { write: 3600, send: 3600 },
    },
  }, async (w) => ({
    alice: await w.approver("alice"),
  }));

  /** How many requests the stream holds under this call id, whoever asked and in whichever domain. */
  const requestsOf = async (callId: string) => {
    const info = await t.w.bus.jsm.streams.info(STREAM_CALLS, { subjects_filter: `warden.call.*.${callId}.ToolCallRequested.*` });
    return Object.keys(info.state.subjects ?? {}).length;
  };

  it("asks once for the same key: the second call follows the first call's approval and returns its result", async () => {
    const planner = await t.w.agent("planner");
    const args = { customerId: "C-idem", text: "your refund is on its way" };
    const first = await planner.call("customer.message", args, { mode: "plan", idempotencyKey: "refund-C-idem/notify" });
    expect(first).toMatchObject({ ok: false, status: "awaiting_approval" });
    const again = await planner.call("customer.message", args, { mode: "plan", idempotencyKey: "refund-C-idem/notify" });
    expect(again).toMatchObject({ callId: first.callId, status: "awaiting_approval", approvalId: first.approvalId });
    expect(await requestsOf(first.callId)).toBe(1);

    const inbox = await t.alice.pending();
    const card = inbox.ok ? inbox.value.find((p) => p.approvalId === first.approvalId) : undefined;
    expect(card).toBeDefined();
    expect(await t.alice.approve(card!.approvalId, card!.argsHash)).toMatchObject({ ok: true });

    // a third ask after the grant (a retry of a step that crashed) waits for the same call's end
    const done = await planner.call("customer.message", args, { mode: "plan", idempotencyKey: "refund-C-idem/notify", wait: true, timeoutMs: 20_000 });
    expect(done).toMatchObject({ callId: first.callId, ok: true, status: "succeeded" });
    expect(await requestsOf(first.callId)).toBe(1);
    expect((await readOutbox(t.w.bus)).filter((m) => m.customerId === "C-idem")).toHaveLength(1);
  }, 40_000);

  it("refuses the same key for other args with DUPLICATE_CALL_ID and makes no second request", async () => {
    const planner = await t.w.agent("planner");
    const first = await planner.call("kb.search", { query: "refund" }, { mode: "plan", idempotencyKey: "search-1", wait: true });
    expect(first).toMatchObject({ ok: true, status: "succeeded" });
    const other = await planner.call("kb.search", { query: "returns" }, { mode: "plan", idempotencyKey: "search-1", wait: true });
    expect(other).toMatchObject({ callId: first.callId, ok: false, status: "rejected", error: { code: "DUPLICATE_CALL_ID" } });
    expect(await requestsOf(first.callId)).toBe(1);
    // the same key as another principal is another call
    const bot = await t.w.agent("support-bot");
    const theirs = await bot.call("kb.search", { query: "refund" }, { idempotencyKey: "search-1", wait: true });
    expect(theirs.callId).not.toBe(first.callId);
  }, 30_000);

  it("resumes by call id alone from a new client instance: the same result shape call() gives, nothing asked again", async () => {
    const before = await t.w.agent("planner");
    const args = { customerId: "C-resume", text: "we have fixed it" };
    const asked = await before.call("customer.message", args, { mode: "plan" });
    expect(asked).toMatchObject({ status: "awaiting_approval" });
    await before.close();

    // a new process: a new connection and client that know only the call id
    const after = await t.w.agent("planner");
    expect(await after.result(asked.callId, { wait: false })).toMatchObject({ callId: asked.callId, status: "awaiting_approval", approvalId: asked.approvalId });
    const waiting = after.result(asked.callId, { timeoutMs: 20_000 });
    const inbox = await t.alice.pending();
    const card = inbox.ok ? inbox.value.find((p) => p.approvalId === asked.approvalId) : undefined;
    expect(await t.alice.approve(card!.approvalId, card!.argsHash)).toMatchObject({ ok: true });
    const done = await waiting;
    expect(done).toMatchObject({ callId: asked.callId, ok: true, status: "succeeded" });
    // the same answer read again, and the same shape call() would give a call that waits
    expect(await after.result(asked.callId)).toEqual(done);
    expect(await requestsOf(asked.callId)).toBe(1);
    await eventually(async () => expect((await readOutbox(t.w.bus)).filter((m) => m.customerId === "C-resume")).toHaveLength(1));
  }, 40_000);

  it("answers NOT_FOUND for a call id this principal never used, even one another principal did", async () => {
    const bot = await t.w.agent("support-bot");
    const theirs = await bot.call("kb.search", { query: "refund" }, { wait: true });
    const planner = await t.w.agent("planner");
    expect(await planner.result(theirs.callId, { timeoutMs: 2_000 })).toMatchObject({ ok: false, status: "failed", error: { code: "NOT_FOUND" } });
    expect(await planner.result("never-made", { timeoutMs: 2_000 })).toMatchObject({ ok: false, status: "failed", error: { code: "NOT_FOUND" } });
    // its owner resumes it
    expect(await bot.result(theirs.callId)).toEqual(theirs);
  }, 30_000);
});
