import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appendEvent, kvGetJson, readEvent, type Bus } from "@warden/bus";
import { nextCallEvent, stampNow, type ToolArgsValidated, type ToolPolicyChecked } from "@warden/contracts/events";
import { BUCKET_BUDGETS, ledgerKey } from "@warden/contracts/subjects";
import { type ToolRecord } from "@warden/contracts/descriptor";
import { type PolicyDocumentInput } from "@warden/contracts/policy";
import { LedgerStateSchema, ledgerUsed } from "@warden/policy-engine";
import { eventually, putToolRecord, startTestNats, toolRecordOf, type TestNats } from "@warden/testing";
import { validatedCall } from "../test-support/validated-call.js";
import { putPolicyDocument } from "./policy-document.js";
import { startPolicyService, type PolicyService } from "./service.js";

/**
 * Ledger budgets across policy copies: two copies of the service, each connected as its own policy
 * identity (so the settlement durables and the ledger keys are used with the rights docs/security.md
 * gives the role), deciding one principal's calls at once.
 */
let nats: TestNats;
let admin: Bus;
const copies: PolicyService[] = [];
/** How many decisions each copy made (from its debug log). */
const decidedBy = new Map<string, number>();
let tool: ToolRecord;

const LIMIT = 20;
const POLICY: PolicyDocumentInput = {
  version: "ledger-int-1",
  principals: { spender: { kind: "agent" }, other: { kind: "agent" } },
  teams: { spenders: ["spender"] },
  budgets: { ledgers: [{ id: "spenders-daily", team: "spenders", period: "day", calls: LIMIT }] },
};

function validated(principal = "spender"): ToolArgsValidated {
  return validatedCall(tool, { principal, mode: "plan" });
}

async function decided(ev: ToolArgsValidated): Promise<ToolPolicyChecked> {
  return eventually(async () => {
    const found = await readEvent(admin, ev.domain, ev.callId, "ToolPolicyChecked");
    expect(found, `decision of ${ev.callId}`).toBeDefined();
    return found!;
  }, 30_000);
}

/** Asks for `n` calls at once and waits for every decision. */
async function callsAtOnce(n: number, principal = "spender"): Promise<ToolPolicyChecked[]> {
  const events = Array.from({ length: n }, () => validated(principal));
  await Promise.all(events.map(async (ev) => expect((await appendEvent(admin, ev)).status).toBe("written")));
  return Promise.all(events.map(decided));
}

/** What the executor would write: the call's result. */
async function finish(checked: ToolPolicyChecked, ok: boolean): Promise<void> {
  const result = nextCallEvent(checked, "ToolCallFinished", { ok, truncated: false, outputBytes: 0, artifacts: [], durationMs: 1, executorId: "ledger-test", attempt: 1, ...(ok ? { output: {} } : { error: { code: "HANDLER_ERROR", message: "failed", retryable: true } }) }, stampNow());
  expect((await appendEvent(admin, result)).status).toBe("written");
}

async function ledgerState() {
  return (await kvGetJson(await admin.kvm.open(BUCKET_BUDGETS), ledgerKey("spenders-daily", "spenders"), LedgerStateSchema))?.value;
}

beforeAll(async () => {
  nats = await startTestNats();
  admin = await nats.bus("ledger-admin");
  tool = toolRecordOf({
    name: "ledger.spend",
    version: "1.0.0",
    title: "Spend",
    description: "Use it when the ledger tests need a call to count.",
    inputSchema: { type: "object" },
    grade: "read",
    cost: 3,
  });
  await putToolRecord(admin, tool);
  const put = await putPolicyDocument(admin, POLICY);
  expect(put.ok).toBe(true);
  for (const name of ["policy-a", "policy-b"]) {
    const log = pino({ level: "debug" }, { write: (line: string) => void (line.includes('"msg":"policy decided"') && decidedBy.set(name, (decidedBy.get(name) ?? 0) + 1)) });
    const copy = await startPolicyService({ bus: await nats.connectAs({ kind: "service", name, role: "policy" }), log, concurrency: 32 });
    copies.push(copy);
    await eventually(() => expect(copy.document().version).toBe(POLICY.version));
  }
});
afterAll(async () => {
  await Promise.all(copies.map((c) => c.stop()));
  await nats.stop();
});

describe("ledger budgets across two policy copies", () => {
  it("admits exactly 20 of 50 concurrent calls against a ledger of 20, and refuses the rest BUDGET_EXCEEDED with what is left and when it resets", async () => {
    const decisions = await callsAtOnce(50);
    // both copies decided some of them
    expect([...decidedBy.values()].filter((n) => n > 0)).toHaveLength(2);
    const admitted = decisions.filter((d) => d.data.decision === "allow");
    const refused = decisions.filter((d) => d.data.decision === "deny");
    expect(admitted).toHaveLength(LIMIT);
    expect(refused).toHaveLength(50 - LIMIT);
    for (const d of admitted) {
      expect(d.data.reservations).toEqual([{ ledger: "spenders-daily", holder: "spenders", period: new Date().toISOString().slice(0, 10), calls: 1, cost: 3 }]);
    }
    const r = refused[0]!;
    expect(r.data).toMatchObject({ ruleIds: ["budget.ledger"], exceeded: { ledger: "spenders-daily", holder: "spenders", left: { calls: 0 }, limit: { calls: LIMIT } } });
    expect(r.data.reservations).toBeUndefined();
    const rejection = await eventually(async () => {
      const found = await readEvent(admin, r.domain, r.callId, "ToolCallRejected");
      expect(found).toBeDefined();
      return found!;
    });
    expect(rejection.data.error).toMatchObject({ code: "BUDGET_EXCEEDED", retryable: false, details: { ledger: "spenders-daily", left: { calls: 0 }, resetsAt: r.data.exceeded?.resetsAt } });
    expect(rejection.data.error.details?.["retryAfterMs"]).toBeGreaterThan(0);
    const state = await ledgerState();
    expect(state && ledgerUsed(state)).toEqual({ calls: LIMIT, cost: 3 * LIMIT });
    // another principal, no team: no ledger stands in its way
    expect((await callsAtOnce(3, "other")).map((d) => d.data.decision)).toEqual(["allow", "allow", "allow"]);
  });

  it("makes the reservations of failed calls available again and keeps those of calls that ran", async () => {
    const state = await ledgerState();
    const held = state!.holds.map((h) => h.callId);
    expect(held).toHaveLength(LIMIT);
    const checks = await Promise.all(held.slice(0, 8).map(async (callId) => (await readEvent(admin, "ledger", callId, "ToolPolicyChecked"))!));
    // five failed (released), three succeeded (spent)
    await Promise.all(checks.map((c, i) => finish(c, i >= 5)));
    await eventually(async () => expect(await ledgerState()).toMatchObject({ spent: { calls: 3, cost: 9 }, holds: expect.toSatisfy((h: unknown[]) => h.length === LIMIT - 8) }), 20_000);
    const again = await callsAtOnce(12);
    expect(again.filter((d) => d.data.decision === "allow")).toHaveLength(5);
    expect(ledgerUsed((await ledgerState())!)).toEqual({ calls: LIMIT, cost: 3 * LIMIT });
  });

  it("releases the hold of a call cancelled before it started once the ledger would refuse, and admits the next call", async () => {
    const state = await ledgerState();
    expect(ledgerUsed(state!).calls).toBe(LIMIT);
    expect((await callsAtOnce(1))[0]!.data.decision).toBe("deny");
    // one held call is cancelled (the approver writes the cancel into its claim slot): it never ran
    const victim = state!.holds.find((h) => h.domain === "ledger")!;
    const checked = (await readEvent(admin, "ledger", victim.callId, "ToolPolicyChecked"))!;
    const cancel = nextCallEvent(checked, "ToolCallCancelled", { by: "spender", as: "requester", reason: "asked twice" }, stampNow());
    expect((await appendEvent(admin, cancel)).status).toBe("written");
    const [next] = await callsAtOnce(1);
    expect(next!.data.decision).toBe("allow");
    const after = (await ledgerState())!;
    expect(after.holds.map((h) => h.callId)).not.toContain(victim.callId);
    expect(after.holds.map((h) => h.callId)).toContain(next!.callId);
    expect(ledgerUsed(after).calls).toBe(LIMIT);
  });
});
