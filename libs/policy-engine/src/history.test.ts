import { describe, expect, it } from "vitest";
import { PolicyDocumentSchema, type HistoryFinding } from "@warden/contracts/policy";
import { type JsonValue } from "@warden/contracts/json";
import { record } from "../test-support/fixtures.js";
import { decideRequest, parseDecideRequest } from "./decide.js";
import { evaluateCall } from "./evaluate-call.js";
import { evaluatePolicy, ruleMatches, type CallFacts } from "./evaluate.js";
import { evaluateHistory, historyProbesOf, recordIn, settleHistoryIn, type HistoryCall, type HistoryIndexState, type HistoryProbe } from "./history.js";
import { HistoryReplay, replayHistory, type HistoryRecord } from "./history-replay.js";
import { lintPolicyDocument } from "./lint-document.js";
import { whatIf, type RecordedDecision } from "./what-if.js";

const obj = (props: Record<string, string>) => ({ type: "object", properties: Object.fromEntries(Object.entries(props).map(([k, t]) => [k, { type: t }])) });
const effects = "Use when the change is wanted; it changes what others see later.";
const records = [
  record({ name: "bank.transfer", title: "Transfer", grade: "write", description: effects, inputSchema: obj({ to: "string", amount: "number" }) }),
  record({ name: "crm.get_record", title: "Read a record", inputSchema: obj({ recordId: "string" }) }),
  record({ name: "crm.delete_record", title: "Delete a record", grade: "write", actionType: "delete", destructive: true, description: effects, inputSchema: obj({ recordId: "string" }) }),
  record({ name: "shop.fraud_check", title: "Fraud check", inputSchema: obj({ customerId: "string" }) }),
  record({ name: "shop.refund", title: "Refund", grade: "write", description: effects, inputSchema: obj({ customerId: "string", amount: "number" }) }),
];
const tool = (name: string) => records.find((r) => r.descriptor.name === name)!.descriptor;

const doc = PolicyDocumentSchema.parse({
  version: "h1",
  principals: { bot: { kind: "agent" } },
  rules: [
    {
      id: "transfers.hourly",
      match: { tool: "bank.transfer" },
      when: { history: { scope: "principal", within: "1h", calls: { tool: "bank.transfer" }, sum: { arg: "amount", max: 5000 } } },
      effect: "deny",
      reason: "at most 5000 of transfers an hour",
    },
    {
      id: "delete.after-read",
      match: { actionType: "delete" },
      when: { history: { scope: "run", within: "1h", calls: { tool: "crm.get_record", outcome: "ok" }, same: ["recordId"], absent: true } },
      effect: "deny",
      reason: "nobody read this record in the run",
    },
    {
      id: "refund.after-check",
      match: { tool: "shop.refund" },
      when: { history: { scope: "principal", within: "30m", calls: { tool: "shop.fraud_check", outcome: "ok" }, same: ["customerId"], absent: true } },
      effect: "deny",
      reason: "no fraud check of this customer in the last 30 minutes",
    },
  ],
});

const NOW = Date.parse("2030-01-01T10:30:00.000Z");
const call = (name: string, args: JsonValue, o: Partial<HistoryCall> = {}): HistoryCall => ({ callId: o.callId ?? "c-now", tool: tool(name), principal: "bot", runId: "run1", args, ...o });
const facts = (name: string): CallFacts => ({ tool: tool(name), principal: "bot", mode: "plan", flags: {}, scope: null });
const probesOf = (c: HistoryCall) => historyProbesOf(doc, c, (r) => ruleMatches(r, facts(c.tool.name)));

/** Records each call in the keys it belongs to, as the policy stage does when it admits them, settled as given. */
function indexOf(calls: readonly { c: HistoryCall; at: number; settle?: "ok" | "unknown" | "released" }[]): Map<string, HistoryIndexState> {
  const states = new Map<string, HistoryIndexState>();
  for (const { c, at, settle } of calls) {
    for (const p of probesOf(c).filter((x) => x.record)) {
      const r = recordIn(states.get(p.key), p, c.callId, at);
      if (r.kind !== "next") continue;
      states.set(p.key, settle === undefined ? r.next : (settleHistoryIn(r.next, c.callId, settle, at) ?? r.next));
    }
  }
  return states;
}

function decideWith(states: Map<string, HistoryIndexState>, c: HistoryCall) {
  const findings: HistoryFinding[] = probesOf(c)
    .filter((p) => p.check)
    .map((p) => evaluateHistory(p, states.get(p.key), NOW, c.callId));
  return { findings, decision: evaluatePolicy(doc, { ...facts(c.tool.name), history: new Map(findings.map((f) => [f.ruleId, f])) }) };
}

describe("history conditions", () => {
  it("counts transfers in flight against a sum limit, so the third $2,000 is refused and a $1,000 one still fits", () => {
    const t = (id: string, amount: number) => call("bank.transfer", { to: "acme", amount }, { callId: id });
    const index = indexOf([
      { c: t("t1", 2000), at: NOW - 60_000 },
      { c: t("t2", 2000), at: NOW - 30_000 },
    ]);
    const third = decideWith(index, t("t3", 2000));
    expect(third.decision).toMatchObject({ decision: "deny", ruleIds: ["transfers.hourly"] });
    expect(third.findings).toEqual([{ ruleId: "transfers.hourly", scope: "principal", holder: "bot", holds: true, matched: ["t1", "t2"], count: 2, sum: 4000, own: 2000 }]);
    expect(decideWith(index, t("t4", 1000)).decision.decision).toBe("allow");
  });

  it("forgets what is outside the window, and what was released (a failed or refused transfer)", () => {
    const t = (id: string, amount: number) => call("bank.transfer", { to: "acme", amount }, { callId: id });
    const index = indexOf([
      { c: t("old", 4000), at: NOW - 3_600_001 },
      { c: t("failed", 4000), at: NOW - 1000, settle: "released" },
      { c: t("t1", 2000), at: NOW - 1000, settle: "ok" },
    ]);
    expect(decideWith(index, t("t2", 3000))).toMatchObject({ decision: { decision: "allow" }, findings: [{ holds: false, matched: ["t1"], sum: 2000 }] });
  });

  it("refuses a sum whose own amount is not a non-negative number (it cannot be added up)", () => {
    expect(decideWith(new Map(), call("bank.transfer", { to: "acme", amount: -10_000 })).decision.decision).toBe("deny");
    expect(decideWith(new Map(), call("bank.transfer", { to: "acme" })).decision.decision).toBe("deny");
  });

  it("refuses a delete of a record nobody read in the run, and lets one of a record read (finished ok) go on to its person", () => {
    const read = (id: string, recordId: string, o: Partial<HistoryCall> = {}) => call("crm.get_record", { recordId }, { callId: id, ...o });
    const del = call("crm.delete_record", { recordId: "R-1" });
    expect(decideWith(new Map(), del)).toMatchObject({ decision: { decision: "deny", ruleIds: ["delete.after-read"] }, findings: [{ holds: true, matched: [], count: 0 }] });
    // another record read, the same record read in another run, or a read still in flight: not a read of this record
    const others = indexOf([
      { c: read("r-other", "R-2"), at: NOW - 1000, settle: "ok" },
      { c: read("r-run2", "R-1", { runId: "run2" }), at: NOW - 1000, settle: "ok" },
      { c: read("r-flight", "R-1"), at: NOW - 1000 },
    ]);
    expect(decideWith(others, del).decision.decision).toBe("deny");
    const readFirst = indexOf([{ c: read("r1", "R-1"), at: NOW - 1000, settle: "ok" }]);
    // L5 (destructive): a person confirms it, the history rule no longer refuses it
    expect(decideWith(readFirst, del)).toMatchObject({ decision: { decision: "require_approval" }, findings: [{ holds: false, matched: ["r1"] }] });
  });

  it("allows a refund after the fraud check of the same customer, and refuses one without it", () => {
    const refund = call("shop.refund", { customerId: "K-7", amount: 40 });
    const checked = indexOf([{ c: call("shop.fraud_check", { customerId: "K-7" }, { callId: "f1" }), at: NOW - 60_000, settle: "ok" }]);
    expect(decideWith(checked, refund).decision).toMatchObject({ decision: "allow" });
    expect(decideWith(new Map(), refund).decision).toMatchObject({ decision: "deny", ruleIds: ["refund.after-check"] });
    // a check older than the window does not count
    const stale = indexOf([{ c: call("shop.fraud_check", { customerId: "K-7" }, { callId: "f0" }), at: NOW - 31 * 60_000, settle: "ok" }]);
    expect(decideWith(stale, refund).decision.decision).toBe("deny");
  });

  it("never matches a history rule without findings (a ToolView, a decision with no history given)", () => {
    expect(evaluatePolicy(doc, facts("shop.refund")).decision).toBe("allow");
  });

  it("keeps a call once in a key however often it is recorded, and refuses to drop a call a limit counts when the key is full", () => {
    const p = probesOf(call("bank.transfer", { to: "acme", amount: 1 })).find((x) => x.record)!;
    const first = recordIn(undefined, p, "c1", NOW);
    expect(first.kind).toBe("next");
    if (first.kind !== "next") return;
    expect(recordIn(first.next, p, "c1", NOW)).toEqual({ kind: "already" });
    const full: HistoryIndexState = { ...first.next, entries: Array.from({ length: 512 }, (_, i) => ({ callId: `e${i}`, at: NOW, state: "ok" as const, amount: 0 })) };
    expect(recordIn(full, p, "c2", NOW)).toEqual({ kind: "full" });
    const exists: HistoryProbe = probesOf(call("crm.get_record", { recordId: "R-1" })).find((x) => x.record)!;
    expect(recordIn({ ...full, ruleId: exists.ruleId }, exists, "c2", NOW).kind).toBe("next");
  });
});

describe("decideRequest with a history file", () => {
  const history: HistoryRecord[] = [
    { callId: "f1", tool: "shop.fraud_check", principal: "bot", runId: "run9", args: { customerId: "K-7" }, at: "2030-01-01T10:20:00.000Z", outcome: "ok" },
    { callId: "t1", tool: "bank.transfer", principal: "bot", runId: "run9", args: { to: "x", amount: 2000 }, at: "2030-01-01T10:21:00.000Z", outcome: "pending" },
    { callId: "t2", tool: "bank.transfer", principal: "bot", runId: "run8", args: { to: "y", amount: 2000 }, at: "2030-01-01T10:22:00.000Z", outcome: "ok" },
  ];
  const decide = (input: unknown, h?: HistoryRecord[]) => {
    const req = parseDecideRequest(input);
    if (!req.ok) throw new Error(req.error.message);
    return decideRequest(doc, records, req.value, h);
  };

  it("decides the history conditions from the earlier calls given, and names the calls they counted", () => {
    const refund = { tool: "shop.refund", principal: "bot", mode: "plan", args: { customerId: "K-7", amount: 5 }, at: "2030-01-01T10:30:00.000Z" };
    expect(decide(refund, history)).toMatchObject({ ok: true, value: { decision: "allow", history: [{ ruleId: "refund.after-check", holds: false, matched: ["f1"] }] } });
    expect(decide({ ...refund, args: { customerId: "K-8", amount: 5 } }, history)).toMatchObject({ value: { decision: "deny", ruleIds: ["refund.after-check"] } });
    const transfer = { tool: "bank.transfer", principal: "bot", mode: "plan", args: { to: "z", amount: 2000 }, at: "2030-01-01T10:30:00.000Z" };
    expect(decide(transfer, history)).toMatchObject({ value: { decision: "deny", history: [{ ruleId: "transfers.hourly", matched: ["t1", "t2"], sum: 4000, own: 2000 }] } });
  });

  it("says a history condition is not decided when no history is given", () => {
    const r = decide({ tool: "shop.refund", principal: "bot", mode: "plan", args: { customerId: "K-7", amount: 5 } });
    expect(r).toMatchObject({ value: { decision: "allow" } });
    expect(r.ok && r.value.notEvaluated).toContainEqual({ gate: "history", detail: expect.stringContaining("rule refund.after-check") });
  });

  it("is the same fold the stage keeps: replayHistory over records equals the index built call by call", () => {
    const findings = replayHistory(doc, history, call("bank.transfer", { to: "z", amount: 1 }), (r) => ruleMatches(r, facts("bank.transfer")), NOW);
    expect(findings).toMatchObject([{ holds: false, sum: 4000, own: 1 }]);
  });
});

describe("replaying history for many decisions", () => {
  // calls every 90 s for three hours, of three tools, four runs and six customers; some still in
  // flight, some failed, and outcomes written minutes after they started: windows slide, calls end
  // between two decisions, and calls leave the 30-minute and 1-hour windows
  const tools = ["bank.transfer", "shop.fraud_check", "crm.get_record"] as const;
  const start = Date.parse("2030-01-01T08:00:00.000Z");
  const history: HistoryRecord[] = Array.from({ length: 120 }, (_, i) => {
    const name = tools[i % 3]!;
    const args: JsonValue = name === "bank.transfer" ? { to: `a${i % 4}`, amount: 300 + (i % 7) * 100 } : name === "shop.fraud_check" ? { customerId: `K-${i % 6}` } : { recordId: `R-${i % 6}` };
    const at = start + i * 90_000;
    const outcome = i % 11 === 0 ? "pending" : i % 7 === 0 ? "failed" : "ok";
    return { callId: `h${i}`, tool: name, principal: "bot", runId: `run${i % 4}`, args, at: new Date(at).toISOString(), outcome, endedAt: new Date(at + (i % 5) * 60_000).toISOString() };
  });
  const asked = (i: number) => {
    const name = (["bank.transfer", "shop.refund", "crm.delete_record"] as const)[i % 3]!;
    const args: JsonValue = name === "bank.transfer" ? { to: "z", amount: 900 } : name === "shop.refund" ? { customerId: `K-${i % 6}`, amount: 5 } : { recordId: `R-${i % 6}` };
    return { c: call(name, args, { callId: `q${i}`, runId: `run${i % 4}` }), name, nowMs: start + i * 137_000 };
  };

  it("gives each decision, asked in time order from one fold, what a fold of its own gives it", () => {
    const replay = new HistoryReplay(doc, history);
    let held = 0;
    for (let i = 0; i < 80; i++) {
      const q = asked(i);
      const once = replayHistory(doc, history, q.c, (r) => ruleMatches(r, facts(q.name)), q.nowMs);
      expect(replay.findings(q.c, (r) => ruleMatches(r, facts(q.name)), q.nowMs)).toEqual(once);
      held += once.filter((f) => f.holds).length;
    }
    // the decisions were not all alike: conditions held for some and not for others
    expect(held).toBeGreaterThan(5);
    expect(held).toBeLessThan(75);
    // asked about an earlier moment again, it folds from the start
    const early = asked(3);
    expect(replay.findings(early.c, (r) => ruleMatches(r, facts(early.name)), early.nowMs)).toEqual(replayHistory(doc, history, early.c, (r) => ruleMatches(r, facts(early.name)), early.nowMs));
  });

  it("counts a call in flight until its ending is written, then as it ended", () => {
    const t1: HistoryRecord = { callId: "t1", tool: "bank.transfer", principal: "bot", runId: "r", args: { to: "x", amount: 4000 }, at: "2030-01-01T10:00:00.000Z", outcome: "failed", endedAt: "2030-01-01T10:10:00.000Z" };
    const replay = new HistoryReplay(doc, [t1]);
    const transfer = (id: string) => call("bank.transfer", { to: "y", amount: 2000 }, { callId: id });
    const at = (hhmm: string) => Date.parse(`2030-01-01T${hhmm}:00.000Z`);
    // before the failure is written the 4000 is held against the limit; after, it is released
    expect(replay.findings(transfer("a"), (r) => ruleMatches(r, facts("bank.transfer")), at("10:05"))).toMatchObject([{ holds: true, sum: 4000 }]);
    expect(replay.findings(transfer("b"), (r) => ruleMatches(r, facts("bank.transfer")), at("10:15"))).toMatchObject([{ holds: false, sum: 0 }]);
  });
});

describe("history conditions in a document", () => {
  const base = { scope: "run", calls: { tool: "crm.get_record" }, absent: true };
  const parse = (history: Record<string, unknown>) => PolicyDocumentSchema.safeParse({ version: "x", rules: [{ id: "r", effect: "deny", reason: "r", when: { history } }] });

  it("needs a window, at most 24h, and exactly one form", () => {
    expect(parse({ ...base, within: "24h" }).success).toBe(true);
    expect(parse({ ...base, within: "25h" }).error?.issues[0]?.message).toMatch(/longer than the cap of 24h/);
    expect(parse(base).success).toBe(false);
    expect(parse({ ...base, within: "1h", exists: true }).error?.issues[0]?.message).toMatch(/exactly one of exists, absent, count or sum/);
    expect(parse({ ...base, within: "1h", absent: undefined, count: { max: 3 }, calls: { tool: "x.y", outcome: "ok" } }).success).toBe(false);
  });

  it("is linted against the registry: unknown tools and args the tools do not take", () => {
    const d = PolicyDocumentSchema.parse({
      version: "l",
      rules: [
        { id: "a", match: { tool: "crm.delete_record" }, when: { history: { scope: "run", within: "1h", calls: { tool: "crm.get_recrd" }, absent: true } }, effect: "deny", reason: "r" },
        { id: "b", match: { tool: "shop.refund" }, when: { history: { scope: "run", within: "1h", calls: { tool: "shop.fraud_check" }, same: ["customer"], absent: true } }, effect: "deny", reason: "r" },
      ],
    });
    const found = lintPolicyDocument(d, { tools: records.map((r) => r.descriptor) }).map((f) => [f.code, f.path.join("."), f.message]);
    expect(found).toContainEqual(["tool.unknown", "rules.0.when.history.calls.tool.0", expect.stringContaining("did you mean crm.get_record?")]);
    expect(found).toContainEqual(["history.arg_unknown", "rules.1.when.history.same.0", expect.stringContaining("customer, which none of shop.fraud_check takes")]);
    // a conditional deny does not shadow the rules it overlaps
    expect(found.filter(([code]) => code === "rule.shadowed")).toEqual([]);
  });
});

/** A shop.refund decision as the stage records it: allowed by the default table unless `over` says otherwise. */
function refundDecision(callId: string, over: Partial<RecordedDecision> = {}): RecordedDecision {
  return {
    callId,
    requestedAt: "2030-01-01T10:00:00.000Z",
    tool: "shop.refund",
    version: "1.0.0",
    descriptorHash: records[4]!.descriptorHash,
    principal: "bot",
    mode: "plan",
    flags: {},
    scope: null,
    decision: "allow",
    ruleIds: ["default.write.plan"],
    reason: "a fixed plan may write",
    policyVersion: "live-0",
    ...over,
  };
}

describe("what-if over decisions a history condition took part in", () => {
  it("does not replay them from the call alone, and names the candidate's history rules", () => {
    const recorded = (callId: string, holds: boolean) =>
      refundDecision(callId, {
        decision: holds ? "deny" : "allow",
        ruleIds: holds ? ["refund.after-check"] : ["default.write.plan"],
        reason: "r",
        policyVersion: "h1",
        history: [{ ruleId: "refund.after-check", scope: "principal", holder: "bot", holds, matched: [], count: 0 }],
      });
    const r = whatIf(doc, [recorded("a", true), recorded("b", false)], records);
    expect(r).toMatchObject({ considered: 2, replayed: 1, changed: 0, notReplayed: { history: 1 } });
    expect(r.candidateHistoryGates).toEqual(["rules.transfers.hourly.when.history", "rules.delete.after-read.when.history", "rules.refund.after-check.when.history"]);
  });
});

describe("what-if with the stream's history", () => {
  const fraudCheck = (callId: string, customerId: string, at: string, o: Partial<HistoryRecord> = {}): HistoryRecord => ({ callId, tool: "shop.fraud_check", principal: "bot", runId: "run1", args: { customerId }, at, outcome: "ok", ...o });
  /** A refund the live document (no history rule) allowed. */
  const refund = (callId: string, customerId: string, requestedAt: string) => refundDecision(callId, { requestedAt, runId: "run1", args: { customerId, amount: 5 } });

  it("replays each call's history conditions over the calls admitted before it, and counts a call ended after it as still in flight", () => {
    const history = [
      fraudCheck("f1", "K-7", "2030-01-01T10:00:00.000Z", { endedAt: "2030-01-01T10:00:01.000Z" }),
      // its check ended ok only after r3 was requested: for r3 it was in flight, not ok
      fraudCheck("f2", "K-9", "2030-01-01T10:05:00.000Z", { endedAt: "2030-01-01T10:06:00.000Z" }),
    ];
    const decisions = [refund("r1", "K-7", "2030-01-01T10:01:00.000Z"), refund("r2", "K-8", "2030-01-01T10:02:00.000Z"), refund("r3", "K-9", "2030-01-01T10:05:30.000Z"), refund("r4", "K-9", "2030-01-01T10:07:00.000Z")];
    const r = whatIf(doc, decisions, records, { history });
    expect(r).toMatchObject({ considered: 4, replayed: 4, changed: 2, notReplayed: {} });
    expect(r.changes).toMatchObject([{ from: { decision: "allow" }, to: { decision: "deny", ruleIds: ["refund.after-check"] }, callIds: ["r2", "r3"] }]);
    expect(r.candidateHistoryGates).toEqual([]);
    // without the history, the same decisions are replayed as if no rule had a history condition
    expect(whatIf(doc, decisions, records).candidateHistoryGates).toContain("rules.refund.after-check.when.history");
  });

  it("replays a decision a history condition took part in, once it has the history that condition read", () => {
    const denied = { ...refund("r5", "K-1", "2030-01-01T10:10:00.000Z"), decision: "deny" as const, ruleIds: ["refund.after-check"], policyVersion: "h1", history: [{ ruleId: "refund.after-check", scope: "principal" as const, holder: "bot", holds: true, matched: [], count: 0 }] };
    const laxer = PolicyDocumentSchema.parse({ ...doc, version: "h9", rules: doc.rules.filter((x) => x.id !== "refund.after-check") });
    expect(whatIf(laxer, [denied], records)).toMatchObject({ replayed: 0, notReplayed: { history: 1 } });
    expect(whatIf(laxer, [denied], records, { history: [] })).toMatchObject({ replayed: 1, changed: 1, changes: [{ from: { decision: "deny" }, to: { decision: "allow" } }] });
  });
});

describe("history conditions in shadow and over a delegation tree", () => {
  it("records what a shadow history rule would have decided, deciding nothing", () => {
    const shadowDoc = PolicyDocumentSchema.parse({ ...doc, version: "h2", rules: doc.rules.map((r) => (r.id === "refund.after-check" ? { ...r, mode: "shadow" } : r)) });
    const refund = call("shop.refund", { customerId: "K-7", amount: 40 });
    const findings = historyProbesOf(shadowDoc, refund, (r) => ruleMatches(r, facts("shop.refund"))).map((p) => evaluateHistory(p, undefined, NOW, refund.callId));
    const e = evaluateCall(shadowDoc, { ...facts("shop.refund"), history: new Map(findings.map((f) => [f.ruleId, f])) });
    expect(e).toMatchObject({ decision: "allow", shadow: { decision: "deny", shadowRuleIds: ["refund.after-check"] } });
  });

  it("keys a tree-scoped condition by the tree's top call, so sibling calls of one delegation see each other and other trees do not", () => {
    const treeDoc = PolicyDocumentSchema.parse({
      version: "h3",
      rules: [{ id: "tree.cap", match: { tool: "bank.transfer" }, when: { history: { scope: "tree", within: "1h", calls: { tool: "bank.transfer" }, count: { max: 1 } } }, effect: "deny", reason: "one transfer per delegation" }],
    });
    const key = (treeRoot: string, principal: string) => historyProbesOf(treeDoc, call("bank.transfer", { amount: 1 }, { treeRoot, principal }), () => true)[0]!.key;
    expect(key("top-1", "subagent-a")).toBe(key("top-1", "subagent-b"));
    expect(key("top-1", "subagent-a")).not.toBe(key("top-2", "subagent-a"));
    // a call whose tree is not known is not in any tree's history
    expect(historyProbesOf(treeDoc, call("bank.transfer", { amount: 1 }), () => true)).toEqual([]);
  });
});
