import { describe, expect, it } from "vitest";
import { appendEvent, kvGetJson, kvPutJson } from "@warden/bus";
import { newId, type ToolCallCancelled } from "@warden/contracts/events";
import { BUCKET_BUDGETS } from "@warden/contracts/subjects";
import { MAX_HISTORY_ENTRIES, PolicyDocumentSchema, type HistoryFinding } from "@warden/contracts/policy";
import { evaluateHistory, HistoryIndexStateSchema, historyProbesOf, type HistoryProbe } from "@warden/policy-engine";
import { usePolicyCopies } from "../test-support/policy-copies.js";
import { openHistoryIndex } from "./history-index.js";

const doc = PolicyDocumentSchema.parse({
  version: "hi-1",
  rules: [
    {
      id: "cap",
      match: { tool: "bank.transfer" },
      when: { history: { scope: "principal", within: "1h", calls: { tool: "bank.transfer" }, sum: { arg: "amount", max: 5000 } } },
      effect: "deny",
      reason: "cap",
    },
  ],
});
const probes = (callId: string, amount: number, principal: string): HistoryProbe[] =>
  historyProbesOf(doc, { callId, tool: { name: "bank.transfer" }, principal, runId: "r", args: { amount } }, () => true);
const verdictOf = (findings: readonly HistoryFinding[]) => ({ decision: findings.some((f) => f.holds) ? ("deny" as const) : ("allow" as const) });

/** Two policy copies' indexes, each over its own policy connection, deciding against one key. */
describe("the history index across policy copies", () => {
  const copies = usePolicyCopies(openHistoryIndex);

  it("makes the check and the reservation one step: two copies that read the same room cannot both take it", async () => {
    const now = Date.now();
    await copies.a.decide("t1", probes("t1", 2000, "p1"), now, async (f) => verdictOf(f));
    // both copies read the key (2000 used) before either writes: each alone would admit its 2000 + 2000
    let arrived = 0;
    let open: () => void = () => undefined;
    const bothRead = new Promise<void>((done) => (open = done));
    const firstLooks: HistoryFinding[][] = [];
    const decideAfterBoth = async (f: readonly HistoryFinding[]) => {
      if (firstLooks.length < 2) {
        firstLooks.push([...f]);
        if (++arrived === 2) open();
        await bothRead;
      }
      return verdictOf(f);
    };
    const [x, y] = await Promise.all([copies.a.decide("t2", probes("t2", 2000, "p1"), now, decideAfterBoth), copies.b.decide("t3", probes("t3", 2000, "p1"), now, decideAfterBoth)]);
    // the control: from what each read (2000 used), each alone would have admitted its 2000
    expect(firstLooks.map((f) => f[0]?.holds)).toEqual([false, false]);
    // the compare-and-set let one in; the other read again, saw it, and was refused
    expect([x.value.decision, y.value.decision].sort()).toEqual(["allow", "deny"]);
    const refused = x.value.decision === "deny" ? x : y;
    expect(refused.findings[0]).toMatchObject({ holds: true, sum: 4000, own: 2000, count: 2 });
    const key = probes("t1", 0, "p1")[0]!.key;
    const stored = await kvGetJson(await copies.admin.kvm.open(BUCKET_BUDGETS), key, HistoryIndexStateSchema);
    expect(stored?.value.entries.map((e) => [e.state, e.amount])).toEqual([
      ["held", 2000],
      ["held", 2000],
    ]);
  });

  it("admits exactly what fits of many concurrent calls from both copies, and releases room at a result", async () => {
    const now = Date.now();
    const all = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? copies.a : copies.b).decide(`c${i}`, probes(`c${i}`, 1000, "p2"), now, async (f) => verdictOf(f))),
    );
    const admitted = all.filter((r) => r.value.decision === "allow");
    expect(admitted).toHaveLength(5);
    // one fails: its room is free again, and an evaluation now sees 4000
    await copies.b.settle(`c${all.indexOf(admitted[0]!)}`, admitted[0]!.holds, "released");
    const key = probes("x", 0, "p2")[0]!.key;
    const state = (await kvGetJson(await copies.admin.kvm.open(BUCKET_BUDGETS), key, HistoryIndexStateSchema))?.value;
    expect(evaluateHistory(probes("next", 1000, "p2")[0]!, state, Date.now(), "next")).toMatchObject({ holds: false, sum: 4000 });
  });

  it("never refuses a call for a shadow limit whose key is full: the call is admitted and left out of that key, and the shadow finding holds", async () => {
    const shadowDoc = PolicyDocumentSchema.parse({ ...doc, version: "hi-2", rules: doc.rules.map((r) => ({ ...r, id: "cap.shadow", mode: "shadow" })) });
    const shadowProbes = (callId: string) => historyProbesOf(shadowDoc, { callId, tool: { name: "bank.transfer" }, principal: "p3", runId: "r", args: { amount: 1 } }, () => true);
    const [probe] = shadowProbes("s-new");
    expect(probe).toMatchObject({ shadow: true, record: true });
    const now = Date.now();
    const kv = await copies.admin.kvm.open(BUCKET_BUDGETS);
    const entries = Array.from({ length: MAX_HISTORY_ENTRIES }, (_, i) => ({ callId: `s${i}`, at: now - 1000, state: "ok" as const, amount: 0 }));
    await kvPutJson(kv, probe!.key, { ruleId: "cap.shadow", windowMs: 3_600_000, entries });
    // the stage's verdict ignores shadow findings: the enforced rules allow the call
    const r = await copies.a.decide("s-new", [probe!], now, async () => ({ decision: "allow" as const }));
    expect(r).toMatchObject({ value: { decision: "allow" }, holds: [], findings: [{ ruleId: "cap.shadow", holds: true, count: MAX_HISTORY_ENTRIES }] });
    expect(r.full).toBeUndefined();
    expect((await kvGetJson(kv, probe!.key, HistoryIndexStateSchema))?.value.entries).toHaveLength(MAX_HISTORY_ENTRIES);
    // the control: the same key under the enforced rule refuses the call as full
    const enforced = historyProbesOf(doc, { callId: "e-new", tool: { name: "bank.transfer" }, principal: "p3", runId: "r", args: { amount: 1 } }, () => true)[0]!;
    await kvPutJson(kv, enforced.key, { ruleId: "cap", windowMs: 3_600_000, entries });
    expect((await copies.a.decide("e-new", [enforced], now, async () => ({ decision: "allow" as const }))).full).toBeDefined();
  });

  it("releases a call cancelled before it started when a limit would refuse the next call", async () => {
    const now = Date.now();
    const inBank = (callId: string, amount: number) => historyProbesOf(doc, { callId, domain: "bank", tool: { name: "bank.transfer" }, principal: "p4", runId: "r", args: { amount } }, () => true);
    expect((await copies.a.decide("k1", inBank("k1", 4000), now, async (f) => verdictOf(f))).value.decision).toBe("allow");
    // k1 is in flight with 4000 of the 5000: 2000 more is refused
    expect((await copies.a.decide("k2", inBank("k2", 2000), now, async (f) => verdictOf(f))).value).toEqual({ decision: "deny" });
    // k1 is cancelled before it started (the approver writes the cancel into its claim slot): it never ran
    const cancel: ToolCallCancelled = {
      v: 1,
      type: "ToolCallCancelled",
      eventId: newId(),
      callId: "k1",
      domain: "bank",
      tool: "bank.transfer",
      principal: "p4",
      mode: "plan",
      ts: new Date().toISOString(),
      causationId: newId(),
      causeHash: `sha256:${"c".repeat(64)}`,
      correlationId: "r",
      data: { by: "p4", as: "requester", reason: "asked twice" },
    };
    expect((await appendEvent(copies.admin, cancel)).status).toBe("written");
    const r = await copies.b.decide("k3", inBank("k3", 2000), now, async (f) => verdictOf(f));
    expect(r.value).toEqual({ decision: "allow" });
    expect(r.findings[0]).toMatchObject({ holds: false, sum: 0, own: 2000 });
    const key = inBank("x", 0)[0]!.key;
    expect((await kvGetJson(await copies.admin.kvm.open(BUCKET_BUDGETS), key, HistoryIndexStateSchema))?.value.entries.map((e) => e.callId)).toEqual(["k3"]);
  });
});
