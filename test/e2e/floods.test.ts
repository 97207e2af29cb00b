import { describe, expect, it } from "vitest";
import { callEvents } from "@warden/testing";
import { deskAlice, usualPrincipals } from "../support/usual-principals.js";
import { useTestWarden } from "../support/use-test-warden.js";

describe("floods: a principal's rate, the approval quota and budgets no run id escapes, over real services", () => {
  const t = useTestWarden({
    demo: true,
    policy: {
      version: "e2e-floods",
      principals: {
        alice: deskAlice(),
        ...usualPrincipals("support-bot", "planner"),
        flooder: { kind: "agent" },
        "planner-2": { kind: "agent" },
        // its own, generous rate: only its budget stops it
        spender: { kind: "agent", rateLimit: { ratePerSecond: 1000, burst: 1000 } },
      },
      llm: { showWrite: ["ticket.fill"] },
      rateLimits: { perPrincipal: { ratePerSecond: 2, burst: 10 } },
      budgets: { maxCallsPerRun: 100, maxCallsPerPrincipal: { calls: 20, perSeconds: 3600 } },
      approvalQuota: { maxOpenPerRequester: 3 },
    },
  }, async (w) => ({
    flooder: await w.agent("flooder", { timeoutMs: 20_000 }),
    bot: await w.agent("support-bot", { timeoutMs: 20_000 }),
  }));

  it("refuses a burst over a principal's rate RATE_LIMITED with retryAfterMs while another principal's calls go on", async () => {
    const [flood, others] = await Promise.all([
      Promise.all(Array.from({ length: 40 }, (_, i) => t.flooder.call("kb.search", { query: `flood ${i}` }, { mode: "llm" }))),
      Promise.all(Array.from({ length: 5 }, (_, i) => t.bot.call("kb.search", { query: `refund ${i}` }, { mode: "llm" }))),
    ]);
    for (const r of others) expect(r).toMatchObject({ ok: true, status: "succeeded" });
    const ran = flood.filter((r) => r.ok);
    const limited = flood.filter((r) => r.error?.code === "RATE_LIMITED");
    // a burst of 10, plus what 2/s refills while the flood is decided
    expect(ran.length).toBeGreaterThanOrEqual(10);
    expect(ran.length).toBeLessThan(20);
    expect(ran.length + limited.length).toBe(40);
    const refused = limited[0]!;
    expect(refused).toMatchObject({ ok: false, status: "rejected", error: { code: "RATE_LIMITED", retryable: true } });
    const rejection = (await callEvents(t.w.bus, refused.callId)).find((e) => e.type === "ToolCallRejected");
    expect(rejection?.type === "ToolCallRejected" && rejection.data).toMatchObject({ stage: "policy", ruleIds: ["rate.principal"] });
    expect(rejection?.type === "ToolCallRejected" && rejection.data.error.details?.["retryAfterMs"]).toBeGreaterThan(0);
  });

  it("refuses the send past a requester's approval quota APPROVAL_QUOTA, while another requester's send still asks a person", async () => {
    const planner = await t.w.agent("planner");
    const sends = [];
    for (let i = 0; i < 4; i++) sends.push(await planner.call("customer.message", { customerId: `C-q${i}`, text: `hello ${i}` }, { mode: "plan" }));
    expect(sends.slice(0, 3).map((r) => r.status)).toEqual(["awaiting_approval", "awaiting_approval", "awaiting_approval"]);
    expect(sends[3]).toMatchObject({ ok: false, status: "rejected", error: { code: "APPROVAL_QUOTA", retryable: true } });
    const rejection = (await callEvents(t.w.bus, sends[3]!.callId)).find((e) => e.type === "ToolCallRejected");
    expect(rejection?.type === "ToolCallRejected" && rejection.data).toMatchObject({ stage: "approver", error: { details: { open: 3, max: 3 } } });

    const other = await (await t.w.agent("planner-2")).call(
      "customer.message",
      { customerId: "C-real", text: "the one that matters" },
      { mode: "plan" },
    );
    expect(other).toMatchObject({ status: "awaiting_approval" });
    const alice = await t.w.approver("alice");
    const inbox = await alice.pending();
    expect(inbox.ok && inbox.value.map((p) => p.approvalId)).toContain(other.approvalId);
  });

  it("holds a principal to its call budget whatever run ids it names", async () => {
    const spender = await t.w.agent("spender");
    const results = [];
    // a fresh run id per call: the run budget (100) never binds, the principal's (20) does
    for (let i = 0; i < 21; i++) results.push(await spender.call("kb.search", { query: `run ${i}` }, { mode: "llm", runId: `run-${i}-${Date.now()}` }));
    expect(results.slice(0, 20).every((r) => r.status === "succeeded")).toBe(true);
    expect(results[20]).toMatchObject({ ok: false, status: "rejected", error: { code: "BUDGET_EXCEEDED", retryable: false } });
  });
});
