import { execFile } from "node:child_process";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { kvGetJson, readEvent, silentLogger } from "@warden/bus";
import { type ToolResult } from "@warden/contracts/events";
import { BUCKET_BUDGETS, ledgerKey } from "@warden/contracts/subjects";
import { startPolicyService } from "@warden/policy";
import { LedgerStateSchema, ledgerUsed } from "@warden/policy-engine";
import { type AgentClient } from "@warden/sdk";
import { eventually } from "@warden/testing";
import { deskAlice, usualPrincipals } from "../support/usual-principals.js";
import { useTestWarden } from "../support/use-test-warden.js";

const MAIN = resolve(dirname(fileURLToPath(import.meta.url)), "../../cli/dist/main.js");

/**
 * Budgets as a ledger over the whole of Warden, with two policy copies deciding at once: reserved
 * when a call is decided, settled by its result (a person's denial, a tool's failure: room again;
 * a call that ran: spent), exact across the copies.
 */
describe("ledger budgets, over real services with two policy copies", { timeout: 120_000 }, () => {

  const t = useTestWarden({
    demo: true,
    policy: {
      version: "e2e-ledgers",
      principals: {
        alice: deskAlice(),
        ...usualPrincipals("planner"),
        spender: { kind: "agent" },
        tester: { kind: "agent" },
      },
      teams: { spenders: ["spender"], planners: ["planner"] },
      budgets: {
        ledgers: [
          { id: "spenders-daily", team: "spenders", period: "day", calls: 20 },
          { id: "planner-sends", team: "planners", period: "hour", calls: 3 },
          { id: "failures", tool: "demo.fail", period: "day", calls: 2 },
        ],
      },
    },
  }, async (w) => {
    // a second copy of the policy service, its own identity, sharing the stage's durable
    w.track(await startPolicyService({ bus: await w.nats.connectAs({ kind: "service", name: "policy-2", role: "policy" }), log: silentLogger() }));
  });

  const ledger = async (id: string, holder: string) => (await kvGetJson(await t.w.bus.kvm.open(BUCKET_BUDGETS), ledgerKey(id, holder), LedgerStateSchema))?.value;

  it("admits exactly 20 of 50 concurrent calls against a ledger of 20, refusing the rest BUDGET_EXCEEDED with what is left and when it resets", async () => {
    const spender: AgentClient = await t.w.agent("spender", { timeoutMs: 30_000 });
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => spender.call("kb.search", { query: `spend ${i}` }, { mode: "llm" })));
    const ran = results.filter((r) => r.ok);
    const refused = results.filter((r) => r.error?.code === "BUDGET_EXCEEDED");
    expect(ran).toHaveLength(20);
    expect(refused).toHaveLength(30);
    // a day ledger resets at the next UTC midnight
    const resetsAt = expect.stringMatching(/^\d{4}-\d\d-\d\dT00:00:00\.000Z$/);
    expect(refused[0]).toMatchObject({ ok: false, status: "rejected", error: { code: "BUDGET_EXCEEDED", retryable: false, details: { ledger: "spenders-daily", holder: "spenders", left: { calls: 0 }, limit: { calls: 20 }, resetsAt } } });
    expect(refused[0]!.error?.message).toMatch(/budget spenders-daily of spenders is used up for \d{4}-\d\d-\d\d .*0 calls left, resets at/);
    // the calls that ran are spent once their results are in
    await eventually(async () => expect(await ledger("spenders-daily", "spenders")).toMatchObject({ spent: { calls: 20 }, holds: [] }), 15_000);
    await spender.close();
  });

  it("makes a reservation room again when a person denies the approval, and holds the ones still waiting", async () => {
    const planner = await t.w.agent("planner");
    const sends: ToolResult[] = [];
    for (let i = 0; i < 4; i++) sends.push(await planner.call("customer.message", { customerId: `C-l${i}`, text: `hello ${i}` }, { mode: "plan" }));
    expect(sends.map((r) => r.status)).toEqual(["awaiting_approval", "awaiting_approval", "awaiting_approval", "rejected"]);
    expect(sends[3]).toMatchObject({ error: { code: "BUDGET_EXCEEDED", details: { ledger: "planner-sends", left: { calls: 0 } } } });
    expect(ledgerUsed((await ledger("planner-sends", "planners"))!)).toEqual({ calls: 3, cost: 3 });

    const alice = await t.w.approver("alice");
    const pending = await alice.pending();
    const first = pending.ok ? pending.value.find((p) => p.approvalId === sends[0]!.approvalId) : undefined;
    expect(first).toBeDefined();
    expect(await alice.deny(first!.approvalId, first!.argsHash, "not this one")).toMatchObject({ ok: true });
    await eventually(async () => expect((await ledger("planner-sends", "planners"))?.holds.map((h) => h.callId).sort()).toEqual([sends[1]!.callId, sends[2]!.callId].sort()), 15_000);

    const next = await planner.call("customer.message", { customerId: "C-l4", text: "the one after" }, { mode: "plan" });
    expect(next.status).toBe("awaiting_approval");
    const over = await planner.call("customer.message", { customerId: "C-l5", text: "one too many" }, { mode: "plan" });
    expect(over).toMatchObject({ status: "rejected", error: { code: "BUDGET_EXCEEDED" } });
    await planner.close();
  });

  it("makes the reservations of calls whose tool failed room again", async () => {
    const tester = await t.w.agent("tester", { timeoutMs: 20_000 });
    const fail = () => tester.call("demo.fail", {}, { mode: "plan" });
    const firstTwo = await Promise.all([fail(), fail()]);
    expect(firstTwo.map((r) => r.error?.code)).toEqual(["HANDLER_ERROR", "HANDLER_ERROR"]);
    await eventually(async () => expect(await ledger("failures", "tool-demo__fail")).toMatchObject({ spent: { calls: 0 }, holds: [] }), 15_000);
    const twoMore = await Promise.all([fail(), fail()]);
    expect(twoMore.map((r) => r.error?.code)).toEqual(["HANDLER_ERROR", "HANDLER_ERROR"]);
    const checked = await readEvent(t.w.bus, "demo", twoMore[0]!.callId, "ToolPolicyChecked");
    expect(checked?.data.reservations).toEqual([{ ledger: "failures", holder: "tool-demo__fail", period: expect.any(String), calls: 1, cost: 1 }]);
    await tester.close();
  });

  it("shows the ledgers with warden budgets", async () => {
    const r = await new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
      const { NATS_URL: _u, NATS_CREDS: _c, ...env } = process.env;
      execFile(process.execPath, [MAIN, "budgets", "--json"], { env: { ...env, WARDEN_HOME: t.w.nats.home.dir, LOG_LEVEL: "silent" }, timeout: 60_000 }, (err, stdout, stderr) =>
        done({ code: err ? (typeof err.code === "number" ? err.code : -1) : 0, stdout, stderr }),
      );
    });
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { policyVersion: string; ledgers: Record<string, unknown>[] };
    expect(out.policyVersion).toBe("e2e-ledgers");
    expect(out.ledgers).toContainEqual(expect.objectContaining({ ledger: "spenders-daily", holder: "spenders", limit: { calls: 20 }, spent: { calls: 20, cost: 20 }, held: { calls: 0, cost: 0 }, left: { calls: 0 } }));
    expect(out.ledgers).toContainEqual(expect.objectContaining({ ledger: "planner-sends", holder: "planners", held: { calls: 3, cost: 3 }, left: { calls: 0 } }));
  });
});
