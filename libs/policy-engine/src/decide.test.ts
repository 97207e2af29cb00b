import { describe, expect, it } from "vitest";
import { type ToolCallRequested } from "@warden/contracts/events";
import { PolicyDocumentSchema } from "@warden/contracts/policy";
import { record } from "../test-support/fixtures.js";
import { decideRequest, parseDecideRequest, type DecideRequestInput } from "./decide.js";
import { evaluateCall } from "./evaluate-call.js";

const sideEffects = "Use when the change is wanted; it changes what others see later.";
const records = [
  record(),
  record({ version: "2.0.0" }, "disabled"),
  record({ name: "kb.reindex", title: "Reindex", featureFlag: "kbAdmin" }),
  record({ name: "ticket.submit", title: "Submit a ticket", grade: "write", description: sideEffects }),
  record({ name: "customer.message", title: "Message a customer", grade: "send", openWorld: true, description: sideEffects }),
  record({ name: "old.lookup", title: "Old lookup" }, "disabled"),
];
const doc = PolicyDocumentSchema.parse({
  version: "d1",
  principals: { alice: { kind: "human", approves: ["send"], flags: { kbAdmin: true } }, bot: { kind: "agent" } },
  rules: [{ id: "no-reindex-by-plan", match: { tool: "kb.reindex", mode: "plan" }, effect: "deny", reason: "reindex by hand only" }],
});

function decide(input: DecideRequestInput, d = doc) {
  const req = parseDecideRequest(input);
  if (!req.ok) throw new Error(req.error.message);
  return decideRequest(d, records, req.value);
}

describe("decideRequest", () => {
  it("decides as evaluateCall does, for the version the registry would pick, with the caller's ToolView", () => {
    const r = decide({ tool: "kb.search", principal: "bot", mode: "llm" });
    expect(r).toMatchObject({ ok: true, value: { decision: "allow", ruleIds: ["default.read.llm"], policyVersion: "d1", tool: { name: "kb.search", version: "1.0.0" } } });
    if (!r.ok) return;
    expect(r.value.toolView.tools.map((t) => t.name)).toEqual(["kb.search"]);
    expect(r.value.toolView.hidden.map((h) => [h.name, h.reason])).toContainEqual(["customer.message", "send_never_listed_for_llm"]);
    expect(r.value.notEvaluated).toEqual([]);
  });

  it("names the rule that denies, and the gate that refuses before the rules", () => {
    expect(decide({ tool: "kb.reindex", principal: "alice", mode: "plan" })).toMatchObject({ value: { decision: "deny", ruleIds: ["no-reindex-by-plan"], reason: "reindex by hand only" } });
    expect(decide({ tool: "kb.reindex", principal: "alice", mode: "human", flags: { kbAdmin: false } })).toMatchObject({
      value: { decision: "deny", ruleIds: ["gate.feature_flag"], gate: "gate.feature_flag" },
    });
    expect(decide({ tool: "kb.search", principal: "bot", mode: "human" })).toMatchObject({ value: { decision: "deny", gate: "gate.human_mode_needs_person" } });
  });

  it("says how many people a call that waits would need, its quorum's condition read with the request's args", () => {
    const quorumDoc = PolicyDocumentSchema.parse({ ...doc, approvalQuorum: [{ id: "long-messages", tool: "customer.message", when: { arg: "chars", gt: 500 }, approvers: 2 }] });
    const ask = (chars: number) => decide({ tool: "customer.message", principal: "bot", mode: "plan", args: { chars } }, quorumDoc);
    expect(ask(900)).toMatchObject({ value: { decision: "require_approval", quorum: { approvers: 2, ruleId: "long-messages", reason: expect.stringContaining("chars is 900: chars > 500") } } });
    expect(ask(100)).toMatchObject({ value: { quorum: { approvers: 1, ruleId: "default.quorum" } } });
    // a call that runs or is refused waits for nobody: no quorum
    expect(decide({ tool: "kb.search", principal: "bot", mode: "plan" })).toMatchObject({ value: { decision: "allow" } });
    const allowed = decide({ tool: "kb.search", principal: "bot", mode: "plan" });
    expect(allowed.ok && allowed.value.quorum).toBeUndefined();
  });

  it("denies a model's call to what its view hides, as the stage does (view.not_shown)", () => {
    const r = decide({ tool: "ticket__submit", principal: "bot", mode: "llm" });
    expect(r).toMatchObject({ value: { decision: "deny", ruleIds: ["view.not_shown", "llm.show_write"], request: { tool: "ticket.submit" } } });
  });

  it("agrees with evaluateCall for every tool, mode and principal", () => {
    for (const r of records.filter((x) => x.status === "enabled")) {
      for (const mode of ["human", "plan", "llm"] as const) {
        for (const principal of ["alice", "bot", "nobody"]) {
          const d = decide({ tool: r.descriptor.name, principal, mode });
          const e = evaluateCall(doc, { tool: r.descriptor, principal, mode, flags: {}, scope: null });
          expect(d.ok && { decision: d.value.decision, ruleIds: d.value.ruleIds, reason: d.value.reason }).toEqual({
            decision: e.decision,
            ruleIds: e.ruleIds,
            reason: e.reason,
          });
        }
      }
    }
  });

  it("refuses what the registry would refuse before policy: an unknown tool, a missing version, a disabled tool", () => {
    expect(decide({ tool: "kb.nothing", principal: "bot", mode: "llm" })).toMatchObject({ ok: false, error: { code: "UNKNOWN_TOOL" } });
    expect(decide({ tool: "kb.search", version: "9.9.9", principal: "bot", mode: "llm" })).toMatchObject({ ok: false, error: { code: "UNKNOWN_TOOL" } });
    expect(decide({ tool: "kb.search", version: "2.0.0", principal: "bot", mode: "llm" })).toMatchObject({ ok: false, error: { code: "TOOL_DISABLED" } });
    expect(decide({ tool: "old.lookup", principal: "bot", mode: "llm" })).toMatchObject({ ok: false, error: { code: "TOOL_DISABLED" } });
  });

  it("lists the history gates it leaves out: buckets always, run budget and chain unless denied, the quota when it waits", () => {
    const limited = PolicyDocumentSchema.parse({
      version: "d2",
      principals: { alice: { kind: "human", approves: ["send"] } },
      rateLimits: { perPrincipal: { ratePerSecond: 2, burst: 4 } },
      budgets: { maxCallsPerRun: 10, maxCallsPerPrincipal: { calls: 100, perSeconds: 3600 } },
    });
    const waits = decide({ tool: "customer.message", principal: "alice", mode: "plan", parentCallId: "p1" }, limited);
    expect(waits.ok && waits.value.notEvaluated.map((n) => n.gate)).toEqual(["rate_limit", "principal_budget", "run_budget", "delegation", "approval_quota"]);
    const noBotSends = PolicyDocumentSchema.parse({ ...limited, rules: [{ id: "no-bot-sends", match: { principal: "bot", grade: "send" }, effect: "deny", reason: "bot sends nothing" }] });
    const denied = decide({ tool: "customer.message", principal: "bot", mode: "llm" }, noBotSends);
    expect(denied.ok && denied.value.decision).toBe("deny");
    expect(denied.ok && denied.value.notEvaluated.map((n) => n.gate)).toEqual(["rate_limit", "principal_budget"]);
    // a model's send is no longer refused: it waits for a person like a plan's
    const modelSend = decide({ tool: "customer.message", principal: "bot", mode: "llm" }, limited);
    expect(modelSend.ok && modelSend.value).toMatchObject({ decision: "require_approval", ruleIds: ["default.send.llm"] });
    expect(modelSend.ok && modelSend.value.notEvaluated.map((n) => n.gate)).toEqual(["rate_limit", "principal_budget", "run_budget", "approval_quota"]);
  });
});

describe("parseDecideRequest", () => {
  it("takes a recorded ToolCallRequested event as the request", () => {
    const event: ToolCallRequested = {
      v: 1,
      type: "ToolCallRequested",
      eventId: "e1",
      callId: "c1",
      domain: "kb",
      tool: "kb__search",
      principal: "bot",
      mode: "llm",
      ts: "2030-01-01T00:00:00.000Z",
      causationId: null,
      causeHash: null,
      correlationId: "run-1",
      data: { args: { query: "x" }, scope: null, flags: { beta: true } },
    };
    expect(parseDecideRequest(event)).toEqual({
      ok: true,
      value: { tool: "kb__search", principal: "bot", mode: "llm", flags: { beta: true }, scope: null, args: { query: "x" }, runId: "run-1" },
    });
  });

  it("refuses a request without a mode or with a field it does not know, naming it", () => {
    expect(parseDecideRequest({ tool: "kb.search", principal: "bot" })).toMatchObject({ ok: false, error: { code: "INVALID_REQUEST", message: expect.stringMatching(/mode/) } });
    expect(parseDecideRequest({ tool: "kb.search", principal: "bot", mode: "llm", principle: "x" })).toMatchObject({
      ok: false,
      error: { message: expect.stringMatching(/principle/) },
    });
  });
});

describe("decideRequest with shadow rules and ledgers", () => {
  const shadowed = PolicyDocumentSchema.parse({
    ...doc,
    teams: { bots: ["bot"] },
    rules: [...doc.rules, { id: "bots-wait", match: { principal: "bot" }, effect: "require_approval", reason: "trying it", mode: "shadow" }],
    budgets: { ledgers: [{ id: "bots-daily", team: "bots", period: "day", calls: 20, cost: 100 }] },
  });

  it("shows what a shadow rule would decide beside the decision it leaves alone", () => {
    const r = decide({ tool: "kb.search", principal: "bot", mode: "plan" }, shadowed);
    expect(r).toMatchObject({ ok: true, value: { decision: "allow", shadow: { decision: "require_approval", shadowRuleIds: ["bots-wait"] } } });
    expect(decide({ tool: "kb.search", principal: "alice", mode: "plan" }, shadowed)).toMatchObject({ ok: true, value: { decision: "allow" } });
    const alice = decide({ tool: "kb.search", principal: "alice", mode: "plan" }, shadowed);
    expect(alice.ok && alice.value.shadow).toBeUndefined();
  });

  it("lists the ledgers a call would reserve in as not decided offline", () => {
    const r = decide({ tool: "kb.search", principal: "bot", mode: "plan" }, shadowed);
    expect(r.ok && r.value.notEvaluated).toEqual([
      { gate: "ledger_budget", detail: expect.stringMatching(/^budgets.ledgers bots-daily: 20 calls, 100 cost units per day for bots; this call would reserve 1 call and 1 cost units/) },
    ]);
  });
});
