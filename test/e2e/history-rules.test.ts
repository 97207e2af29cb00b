import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { kvGetJson, readEvent, silentLogger } from "@warden/bus";
import { BUCKET_BUDGETS } from "@warden/contracts/subjects";
import { type PolicyDocumentInput } from "@warden/contracts/policy";
import { defineTool } from "@warden/executor";
import { startPolicyService } from "@warden/policy";
import { HistoryIndexStateSchema } from "@warden/policy-engine";
import { eventually } from "@warden/testing";
import { runWarden } from "../support/cli.js";
import { startTestWarden, type TestWarden } from "../support/warden.js";

const effects = "Use when the change is wanted; it changes what others see later.";

/** The document the services decide with; `warden policy decide` reads the same one from a file. */
const POLICY: PolicyDocumentInput = {
  version: "e2e-history",
  principals: { payer: { kind: "agent" }, swarm: { kind: "agent" }, clerk: { kind: "agent" }, cashier: { kind: "agent" }, promoter: { kind: "agent" } },
  rules: [
    {
      id: "transfers.hourly",
      match: { tool: "bank.transfer" },
      when: { history: { scope: "principal", within: "1h", calls: { tool: "bank.transfer" }, sum: { arg: "amount", max: 5000 } } },
      effect: "deny",
      reason: "at most $5,000 of transfers per principal and hour, in flight included",
    },
    {
      id: "delete.after-read",
      match: { actionType: "delete" },
      when: { history: { scope: "run", within: "1h", calls: { tool: "crm.get_record", outcome: "ok" }, same: ["recordId"], absent: true } },
      effect: "deny",
      reason: "nobody in this run read the record it deletes",
    },
    {
      id: "refund.after-check",
      match: { tool: "shop.refund" },
      when: { history: { scope: "principal", within: "30m", calls: { tool: "shop.fraud_check", outcome: "ok" }, same: ["customerId"], absent: true } },
      effect: "deny",
      reason: "no fraud check of this customer in the last 30 minutes",
    },
    {
      id: "coupons.one-per-customer",
      match: { tool: "shop.coupon" },
      when: { history: { scope: "principal", within: "1h", calls: { tool: "shop.coupon" }, same: ["customerId"], count: { max: 1 } } },
      effect: "deny",
      reason: "one coupon per customer and hour",
      mode: "shadow",
    },
  ],
};

/**
 * Rules over earlier calls (docs/policy.md, History conditions), over the real services with two
 * policy copies sharing the stage: a sum limit that counts transfers in flight, a delete that needs
 * a read of the same record first, a refund that needs the customer's fraud check.
 */
describe("history conditions, over real services with two policy copies", { timeout: 120_000 }, () => {
  let w: TestWarden;
  let releaseTransfers: () => void = () => undefined;
  const transfersHeld = new Promise<void>((done) => (releaseTransfers = done));

  beforeAll(async () => {
    w = await startTestWarden({ policy: POLICY });
    w.track(await startPolicyService({ bus: await w.nats.connectAs({ kind: "service", name: "policy-2", role: "policy" }), log: silentLogger() }));
    const tools = [
      // held open until the test lets them finish, so every transfer is decided while the others are in flight
      defineTool({ name: "bank.transfer", version: "1.0.0", title: "Transfer", description: effects, grade: "write", input: z.strictObject({ to: z.string(), amount: z.number() }), handler: async ({ amount }) => (await transfersHeld, { sent: amount }) }),
      defineTool({ name: "crm.get_record", version: "1.0.0", title: "Read a record", description: "Use when a record is needed.", grade: "read", input: z.strictObject({ recordId: z.string() }), handler: async ({ recordId }) => ({ recordId, name: "Jane" }) }),
      defineTool({ name: "crm.delete_record", version: "1.0.0", title: "Delete a record", description: effects, grade: "write", actionType: "delete", destructive: true, input: z.strictObject({ recordId: z.string() }), handler: async ({ recordId }) => ({ deleted: recordId }) }),
      defineTool({ name: "shop.fraud_check", version: "1.0.0", title: "Fraud check", description: "Use before money goes back.", grade: "read", input: z.strictObject({ customerId: z.string() }), handler: async () => ({ risk: "low" }) }),
      defineTool({ name: "shop.coupon", version: "1.0.0", title: "Coupon", description: effects, grade: "write", input: z.strictObject({ customerId: z.string(), percent: z.number() }), handler: async ({ customerId, percent }) => ({ customerId, percent }) }),
      defineTool({ name: "shop.refund", version: "1.0.0", title: "Refund", description: effects, grade: "write", input: z.strictObject({ customerId: z.string(), amount: z.number() }), handler: async ({ amount }) => ({ refunded: amount }) }),
    ];
    for (const domain of ["bank", "crm", "shop"]) {
      await w.startExecutor(domain, tools.filter((t) => t.domain === domain));
    }
  });
  afterAll(async () => {
    releaseTransfers();
    await w.stop();
  });

  it("refuses the third of three concurrent $2,000 transfers under a $5,000 an hour sum limit, and names the two it counted", async () => {
    const payer = await w.agent("payer", { timeoutMs: 30_000 });
    const ids: string[] = [];
    const results = [1, 2, 3].map((i) => payer.call("bank.transfer", { to: `acct-${i}`, amount: 2000 }, { mode: "plan", onAccepted: (id) => ids.push(id) }));
    await eventually(() => expect(ids).toHaveLength(3), 15_000);
    // all three decided while none has finished: the two admitted are in flight
    const decided = await Promise.all(ids.map((id) => eventually(async () => (await readEvent(w.bus, "bank", id, "ToolPolicyChecked")) ?? Promise.reject(new Error("not decided")), 15_000)));
    const admitted = decided.filter((c) => c.data.decision === "allow");
    const refused = decided.filter((c) => c.data.decision === "deny");
    expect(admitted).toHaveLength(2);
    expect(refused).toHaveLength(1);
    expect(refused[0]!.data).toMatchObject({ ruleIds: ["transfers.hourly"], history: [{ ruleId: "transfers.hourly", scope: "principal", holder: "payer", holds: true, count: 2, sum: 4000, own: 2000 }] });
    expect([...refused[0]!.data.history![0]!.matched].sort()).toEqual(admitted.map((c) => c.callId).sort());
    expect(admitted.every((c) => c.data.historyHolds?.[0]?.ruleId === "transfers.hourly")).toBe(true);
    // the rejection is appended after the decision it answers
    const rejected = await eventually(async () => (await readEvent(w.bus, "bank", refused[0]!.callId, "ToolCallRejected")) ?? Promise.reject(new Error("not rejected yet")), 15_000);
    expect(rejected.data.error).toMatchObject({ code: "POLICY_DENIED" });

    releaseTransfers();
    const done = await Promise.all(results);
    expect(done.filter((r) => r.ok).map((r) => r.callId).sort()).toEqual(admitted.map((c) => c.callId).sort());
    // the two that ran stay counted for the hour: the index marks them ok once their results settle
    const key = admitted[0]!.data.historyHolds![0]!.key;
    await eventually(async () => expect((await kvGetJson(await w.bus.kvm.open(BUCKET_BUDGETS), key, HistoryIndexStateSchema))?.value.entries.map((e) => e.state)).toEqual(["ok", "ok"]), 15_000);
    expect(await payer.call("bank.transfer", { to: "acct-4", amount: 1000 }, { mode: "plan" })).toMatchObject({ ok: true });
    expect(await payer.call("bank.transfer", { to: "acct-5", amount: 1 }, { mode: "plan" })).toMatchObject({ ok: false, error: { code: "POLICY_DENIED" } });
    await payer.close();
  });

  it("never admits more than the limit however many transfers race through both copies", async () => {
    // runs on its own too: the transfers must not stay held for the test before
    releaseTransfers();
    const swarm = await w.agent("swarm", { timeoutMs: 30_000 });
    const results = await Promise.all(Array.from({ length: 16 }, (_, i) => swarm.call("bank.transfer", { to: `acct-${i}`, amount: 700 }, { mode: "plan" })));
    // 7 x 700 = 4,900; an eighth would make 5,600
    expect(results.filter((r) => r.ok)).toHaveLength(7);
    expect(results.filter((r) => r.error?.code === "POLICY_DENIED")).toHaveLength(9);
    await swarm.close();
  });

  it("refuses a delete of a record nobody read in the run, and passes one read first on to a person", async () => {
    const clerk = await w.agent("clerk", { runId: "clerk-run-1" });
    const blind = await clerk.call("crm.delete_record", { recordId: "R-1" }, { mode: "plan" });
    expect(blind).toMatchObject({ ok: false, status: "rejected", error: { code: "POLICY_DENIED" } });
    expect(blind.error?.message).toContain("nobody in this run read the record it deletes");
    const denied = await readEvent(w.bus, "crm", blind.callId, "ToolPolicyChecked");
    expect(denied?.data.history).toEqual([{ ruleId: "delete.after-read", scope: "run", holder: "clerk-run-1", holds: true, matched: [], count: 0 }]);

    const read = await clerk.call("crm.get_record", { recordId: "R-1" }, { mode: "plan" });
    expect(read.ok).toBe(true);
    // a read of another record does not count, nor does one in another run
    expect(await clerk.call("crm.delete_record", { recordId: "R-2" }, { mode: "plan" })).toMatchObject({ status: "rejected" });
    expect(await clerk.call("crm.delete_record", { recordId: "R-1" }, { mode: "plan", runId: "clerk-run-2" })).toMatchObject({ status: "rejected" });
    // read first: the history rule lets it through, and a destructive call (L5) waits for a person
    const after = await clerk.call("crm.delete_record", { recordId: "R-1" }, { mode: "plan" });
    expect(after.status).toBe("awaiting_approval");
    const checked = await readEvent(w.bus, "crm", after.callId, "ToolPolicyChecked");
    expect(checked?.data).toMatchObject({ decision: "require_approval", history: [{ ruleId: "delete.after-read", holds: false, matched: [read.callId], count: 1 }] });
    await clerk.close();
  });

  it("allows a refund after the fraud check of the same customer, and refuses one without it", async () => {
    const cashier = await w.agent("cashier");
    const without = await cashier.call("shop.refund", { customerId: "K-7", amount: 40 }, { mode: "plan" });
    expect(without).toMatchObject({ ok: false, error: { code: "POLICY_DENIED" } });
    const check = await cashier.call("shop.fraud_check", { customerId: "K-7" }, { mode: "plan" });
    expect(check.ok).toBe(true);
    // decided at once after the check's result: the decision reads the check's outcome from the stream, not from how far settlement got
    const refund = await cashier.call("shop.refund", { customerId: "K-7", amount: 40 }, { mode: "plan" });
    expect(refund).toMatchObject({ ok: true, data: { refunded: 40 } });
    const checked = await readEvent(w.bus, "shop", refund.callId, "ToolPolicyChecked");
    expect(checked?.data.history).toEqual([{ ruleId: "refund.after-check", scope: "principal", holder: "cashier", holds: false, matched: [check.callId], count: 1 }]);
    expect(await cashier.call("shop.refund", { customerId: "K-8", amount: 40 }, { mode: "plan" })).toMatchObject({ ok: false, error: { code: "POLICY_DENIED" } });
    await cashier.close();
  });

  it("lets a call a shadow history rule would refuse take its normal path, and records the shadow decision and the history it counted", async () => {
    const promoter = await w.agent("promoter");
    const policyChecked = async (callId: string) => (await readEvent(w.bus, "shop", callId, "ToolPolicyChecked"))!.data;
    const first = await promoter.call("shop.coupon", { customerId: "K-9", percent: 10 }, { mode: "plan" });
    expect(first).toMatchObject({ ok: true, status: "succeeded" });
    const firstChecked = await policyChecked(first.callId);
    // under the limit: the shadow rule does not match, so no shadow decision; the condition is still recorded
    expect(firstChecked).toMatchObject({ decision: "allow", history: [{ ruleId: "coupons.one-per-customer", holds: false, count: 0, matched: [] }], historyHolds: [{ ruleId: "coupons.one-per-customer" }] });
    expect(firstChecked.shadow).toBeUndefined();

    // a second coupon for the same customer: enforced, the rule would refuse it; in shadow it runs as the first did
    const second = await promoter.call("shop.coupon", { customerId: "K-9", percent: 15 }, { mode: "plan" });
    expect(second).toMatchObject({ ok: true, status: "succeeded", data: { percent: 15 } });
    const secondChecked = await policyChecked(second.callId);
    expect(secondChecked).toMatchObject({ decision: "allow", ruleIds: firstChecked.ruleIds, reason: firstChecked.reason });
    expect(secondChecked.ruleIds).not.toContain("coupons.one-per-customer");
    expect(secondChecked.shadow).toEqual({ decision: "deny", ruleIds: ["coupons.one-per-customer"], reason: "one coupon per customer and hour", shadowRuleIds: ["coupons.one-per-customer"] });
    expect(secondChecked.history).toEqual([{ ruleId: "coupons.one-per-customer", scope: "principal", holder: "promoter", holds: true, matched: [first.callId], count: 1 }]);
    expect((await readEvent(w.bus, "shop", second.callId, "ToolCallRejected")) ?? null).toBeNull();

    // another customer has its own count (same: [customerId]): nothing to record as shadow
    const other = await promoter.call("shop.coupon", { customerId: "K-10", percent: 10 }, { mode: "plan" });
    expect(other.ok).toBe(true);
    const otherChecked = await policyChecked(other.callId);
    expect(otherChecked.shadow).toBeUndefined();
    expect(otherChecked.history).toMatchObject([{ holds: false, count: 0 }]);
    await promoter.close();
  });

  it("warden policy decide --history-from-stream decides the conditions from the calls recorded on the stream, as the live policy did", async () => {
    const dir = mkdtempSync(join(tmpdir(), "warden-history-stream-"));
    try {
      const file = join(dir, "policy.json");
      writeFileSync(file, JSON.stringify(POLICY));
      const cashier = await w.agent("cashier");
      const check = await cashier.call("shop.fraud_check", { customerId: "K-21" }, { mode: "plan" });
      expect(check.ok).toBe(true);
      const live = await cashier.call("shop.refund", { customerId: "K-21", amount: 5 }, { mode: "plan" });
      expect(live.ok).toBe(true);
      await cashier.close();
      const decide = (customerId: string, ...more: string[]) =>
        runWarden(w.nats.home.dir, "policy", "decide", file, "--json", "--request", JSON.stringify({ tool: "shop.refund", principal: "cashier", mode: "plan", args: { customerId, amount: 5 } }), ...more);
      const after = await decide("K-21", "--history-from-stream");
      expect(after.code, after.err).toBe(0);
      const afterJson = JSON.parse(after.out) as { decision: string; history: { ruleId: string; holds: boolean; matched: string[] }[]; historyFromStream: { since: string; calls: number } };
      expect(afterJson).toMatchObject({ decision: "allow", history: [{ ruleId: "refund.after-check", holds: false }] });
      expect(afterJson.history[0]!.matched).toContain(check.callId);
      // read back the longest window of the document's rules (1h)
      expect(Date.now() - Date.parse(afterJson.historyFromStream.since)).toBeGreaterThanOrEqual(3_600_000);
      expect(afterJson.historyFromStream.calls).toBeGreaterThan(0);
      // another customer had no check: refused, as the live policy refuses it
      const other = await decide("K-22", "--history-from-stream");
      expect(other.code, other.out).toBe(0);
      expect(JSON.parse(other.out)).toMatchObject({ decision: "deny", ruleIds: ["refund.after-check"] });
      // read from after the check: the stream holds no check of K-21 then
      const late = await decide("K-21", "--history-from-stream", "--since", new Date(Date.now() + 1000).toISOString());
      expect(late.code, late.out).toBe(0);
      expect(JSON.parse(late.out)).toMatchObject({ decision: "deny", historyFromStream: { calls: 0 } });
      const both = await decide("K-21", "--history-from-stream", "--history", file);
      expect(both.code).toBe(1);
      expect(JSON.parse(both.out)).toMatchObject({ error: { code: "INVALID_REQUEST", message: expect.stringContaining("--history FILE and --history-from-stream are two sources") } });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("warden policy whatif replays the history conditions over the calls recorded before each decision", async () => {
    const dir = mkdtempSync(join(tmpdir(), "warden-history-whatif-"));
    try {
      // from now, on this host's one clock: a second back took in an earlier test's cashier call on a loaded machine
      const start = new Date();
      const cashier = await w.agent("cashier");
      expect((await cashier.call("shop.fraud_check", { customerId: "K-31" }, { mode: "plan" })).ok).toBe(true);
      const checked = await cashier.call("shop.refund", { customerId: "K-31", amount: 5 }, { mode: "plan" });
      expect(checked.ok).toBe(true);
      const unchecked = await cashier.call("shop.refund", { customerId: "K-32", amount: 5 }, { mode: "plan" });
      expect(unchecked).toMatchObject({ ok: false, error: { code: "POLICY_DENIED" } });
      await cashier.close();
      const whatif = async (doc: PolicyDocumentInput) => {
        const file = join(dir, `${doc.version}.json`);
        writeFileSync(file, JSON.stringify(doc));
        const r = await runWarden(w.nats.home.dir, "policy", "whatif", file, "--since", start.toISOString(), "--principal", "cashier", "--json");
        expect(r.code, r.err).toBe(0);
        return JSON.parse(r.out) as { replayed: number; changed: number; notReplayed: Record<string, number>; candidateHistoryGates: string[]; history: { since: string; calls: number }; changes: { from: { decision: string }; to: { decision: string }; callIds: string[] }[] };
      };
      // the live document again: every decision replayed, the denial included, and none changes
      const same = await whatif({ ...POLICY, version: "same-as-live" });
      expect(same).toMatchObject({ replayed: 3, changed: 0, notReplayed: {} });
      expect(same.history.calls).toBeGreaterThanOrEqual(2);
      expect(same.candidateHistoryGates).toEqual([]);
      // without the refund rule only the refund that had no check changes
      const laxer = await whatif({ ...POLICY, version: "no-refund-rule", rules: POLICY.rules!.filter((r) => r.id !== "refund.after-check") });
      expect(laxer).toMatchObject({ replayed: 3, changed: 1, changes: [{ from: { decision: "deny" }, to: { decision: "allow" }, callIds: [unchecked.callId] }] });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
