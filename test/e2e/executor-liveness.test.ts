import { describe, expect, it } from "vitest";
import { readEvent } from "@warden/bus";
import { BUCKET_EXECUTORS, EXECUTOR_HEARTBEAT_TTL_S } from "@warden/contracts/subjects";
import { defineTool, type Executor } from "@warden/executor";
import { createRegistryClient } from "@warden/sdk";
import { eventually } from "@warden/testing";
import { z } from "zod";
import { usualPrincipals } from "../support/usual-principals.js";
import { useTestWarden } from "../support/use-test-warden.js";

const lookup = defineTool({
  name: "ghost.lookup",
  version: "1.0.0",
  title: "Look something up",
  description: "Use when testing calls to a domain whose executor is not running.",
  grade: "read",
  idempotent: true,
  input: z.strictObject({ q: z.string() }),
  handler: async ({ q }) => ({ found: q }),
});

const notify = defineTool({
  name: "ghost.notify",
  version: "1.0.0",
  title: "Notify someone",
  description: "Use when testing an approval for a domain whose executor is not running; it changes what others see.",
  grade: "send",
  idempotent: false,
  input: z.strictObject({ to: z.string() }),
  handler: async ({ to }) => ({ sent: to }),
});

describe("executor liveness: calls to a domain nobody runs fail fast, approvals say so", () => {
  const tracked: Executor[] = [];
  const keep = (e: Executor) => {
    tracked.push(e);
    return e;
  };
  const t = useTestWarden({
    demo: true,
    policy: {
      version: "e2e-liveness",
      principals: usualPrincipals("alice", "planner"),
      approvalTtlSeconds: { write: 3600, send: 3600 },
    },
  }, async (w) => {
    // the ghost domain's tools are registered (by the admin) but no executor of it runs yet
    const registered = await createRegistryClient(w.bus).register([lookup.descriptor, notify.descriptor]);
    if (!registered.ok) throw new Error(registered.error.message);
    const planner = await w.agent("planner");
    return { planner };
  });

  it("refuses a call that would run now with UNAVAILABLE (retryable) at once, instead of running it whenever an executor starts", async () => {
    const started = Date.now();
    const r = await t.planner.call("ghost.lookup", { q: "refund" }, { mode: "plan", wait: true, timeoutMs: 20_000 });
    expect(r).toMatchObject({ ok: false, status: "rejected", error: { code: "UNAVAILABLE", retryable: true } });
    expect(r.error?.message).toContain("no executor of domain ghost");
    expect(Date.now() - started).toBeLessThan(10_000);
    // nothing is left to run it later
    expect(await readEvent(t.w.bus, "ghost", r.callId, "ToolPolicyChecked")).toMatchObject({ data: { decision: "deny", ruleIds: ["executor.unavailable"] } });
    // a domain whose executor runs is not touched
    expect(await t.planner.call("kb.search", { query: "refund" }, { mode: "plan", wait: true, timeoutMs: 20_000 })).toMatchObject({ ok: true });
  }, 40_000);

  it("flags the card of a call that needs approval when no executor of its domain is alive; a live domain's card has no flag", async () => {
    const ghost = await t.planner.call("ghost.notify", { to: "C-1" }, { mode: "plan" });
    expect(ghost.status).toBe("awaiting_approval");
    expect(await readEvent(t.w.bus, "ghost", ghost.callId, "ApprovalRequested")).toMatchObject({ data: { noLiveExecutor: true } });
    const live = await t.planner.call("customer.message", { customerId: "C-live", text: "hi" }, { mode: "plan" });
    expect(live.status).toBe("awaiting_approval");
    const card = await readEvent(t.w.bus, "customer", live.callId, "ApprovalRequested");
    expect(card?.type === "ApprovalRequested" && card.data.noLiveExecutor).toBeUndefined();
  }, 30_000);

  it("runs calls as soon as an executor starts: its first heartbeat is written before it takes calls", async () => {
    const executor = keep(await t.w.startExecutor("ghost", [lookup, notify]));
    expect(await t.w.bus.kvm.open(BUCKET_EXECUTORS).then((kv) => kv.get("ghost"))).toMatchObject({ operation: "PUT" });
    const r = await t.planner.call("ghost.lookup", { q: "now" }, { mode: "plan", wait: true, timeoutMs: 20_000 });
    expect(r).toMatchObject({ ok: true, data: { found: "now" } });
    // a stopped executor's heartbeat lasts its TTL (a restart is not an outage): the call waits for the next one
    await executor.stop();
    const waiting = await t.planner.call("ghost.lookup", { q: "restart" }, { mode: "plan", wait: true, timeoutMs: 1_000 });
    expect(waiting.status).toBe("pending");
    keep(await t.w.startExecutor("ghost", [lookup, notify], { connectionName: "ghost-2" }));
    await eventually(async () => expect(await t.planner.result(waiting.callId, { timeoutMs: 2_000 })).toMatchObject({ ok: true, data: { found: "restart" } }), 20_000);
  }, 60_000);

  it("refuses calls again once the last executor's heartbeat has run out (the server drops it after its TTL)", async () => {
    const executor = await t.w.startExecutor("ghost", [lookup, notify], { connectionName: "ghost-3" });
    await executor.stop();
    // the executors the test tracks are stopped too: nobody beats for ghost from here on
    await Promise.all(tracked.map((e) => e.stop()));
    const kv = await t.w.bus.kvm.open(BUCKET_EXECUTORS);
    await eventually(async () => expect(await kv.get("ghost")).toBeNull(), (EXECUTOR_HEARTBEAT_TTL_S + 10) * 1_000);
    const r = await t.planner.call("ghost.lookup", { q: "gone" }, { mode: "plan", wait: true, timeoutMs: 20_000 });
    expect(r).toMatchObject({ ok: false, status: "rejected", error: { code: "UNAVAILABLE", retryable: true } });
  }, 60_000);
});
