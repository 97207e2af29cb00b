import { describe, expect, it } from "vitest";
import { type CallMode, type ToolRecord } from "@warden/contracts/descriptor";
import { PolicyDocumentSchema, type PolicyDocument, type PolicyDocumentInput } from "@warden/contracts/policy";
import { record } from "../test-support/fixtures.js";
import { evaluateCall } from "./evaluate-call.js";
import { whatIf, type RecordedDecision } from "./what-if.js";

const sideEffects = "Use when the change is wanted; it changes what others see later.";
const RECORDS: ToolRecord[] = [
  record(),
  record({ name: "ticket.submit", title: "Submit", grade: "write", description: sideEffects }),
  record({ name: "customer.message", title: "Message", grade: "send", openWorld: true, description: sideEffects }),
];
const PEOPLE = { alice: { kind: "human", approves: ["write", "send"] }, bot: { kind: "agent" } } as const;
const doc = (over: Partial<PolicyDocumentInput> = {}) => PolicyDocumentSchema.parse({ version: "live-1", principals: PEOPLE, ...over });

let n = 0;
/** A decision as the live stage would have recorded it under `under`. */
function recorded(under: PolicyDocument, tool: string, principal: string, mode: CallMode, over: Partial<RecordedDecision> = {}): RecordedDecision {
  const r = RECORDS.find((x) => x.descriptor.name === tool)!;
  const e = evaluateCall(under, { tool: r.descriptor, principal, mode, flags: {}, scope: null });
  n++;
  return {
    callId: `c${String(n).padStart(3, "0")}`,
    requestedAt: `2030-01-01T00:00:${String(n % 60).padStart(2, "0")}.000Z`,
    tool,
    version: r.descriptor.version,
    descriptorHash: r.descriptorHash,
    principal,
    mode,
    flags: {},
    scope: null,
    decision: e.decision,
    ruleIds: [...e.ruleIds],
    reason: e.reason,
    policyVersion: under.version,
    ...over,
  };
}

describe("whatIf", () => {
  const live = doc();
  const history = [
    recorded(live, "kb.search", "bot", "llm"),
    recorded(live, "kb.search", "alice", "human"),
    recorded(live, "ticket.submit", "bot", "plan"),
    recorded(live, "ticket.submit", "bot", "plan"),
    recorded(live, "customer.message", "alice", "plan"),
  ];

  it("finds no change when the candidate is the document that decided", () => {
    const r = whatIf(live, history, RECORDS);
    expect(r).toMatchObject({ considered: 5, replayed: 5, changed: 0, unchanged: 5, changes: [], recordedUnder: ["live-1"] });
  });

  it("reports exactly the calls a new rule changes, grouped by the decisions and rules before and after", () => {
    const candidate = doc({
      version: "cand-1",
      rules: [
        { id: "bots-submit-waits", match: { tool: "ticket.submit", principal: "bot" }, effect: "require_approval", reason: "a person checks bots' tickets" },
        { id: "no-kb-for-models", match: { domain: "kb", mode: "llm" }, effect: "deny", reason: "kb is closed to models" },
      ],
    });
    const r = whatIf(candidate, history, RECORDS, { examples: 1 });
    expect(r.changed).toBe(3);
    expect(r.changes).toEqual([
      expect.objectContaining({
        from: { decision: "allow", ruleIds: ["default.write.plan"] },
        to: { decision: "require_approval", ruleIds: ["bots-submit-waits"] },
        count: 2,
        callIds: [history[2]!.callId, history[3]!.callId],
        examples: [expect.objectContaining({ callId: history[2]!.callId, reasonAfter: "a person checks bots' tickets" })],
      }),
      expect.objectContaining({
        from: { decision: "allow", ruleIds: ["default.read.llm"] },
        to: { decision: "deny", ruleIds: ["view.not_shown", "no-kb-for-models"] },
        callIds: [history[0]!.callId],
      }),
    ]);
  });

  it("does not replay decisions a history gate made, nor calls whose descriptor is unknown, and counts them", () => {
    const gated = [
      recorded(live, "kb.search", "bot", "llm", { decision: "deny", ruleIds: ["rate.principal"], reason: "too fast" }),
      recorded(live, "kb.search", "bot", "llm", { decision: "deny", ruleIds: ["budget.max_calls_per_run"] }),
      recorded(live, "kb.search", "bot", "llm", { decision: "require_approval", ruleIds: ["default.read.llm", "attenuation.tool", "x"] }),
      recorded(live, "kb.search", "bot", "llm", { descriptorHash: "sha256:other" }),
      recorded(live, "kb.search", "bot", "llm", { version: "9.0.0" }),
    ];
    const r = whatIf(doc({ version: "cand-2", rules: [{ id: "no-kb", match: { domain: "kb" }, effect: "deny", reason: "closed" }] }), gated, RECORDS);
    expect(r).toMatchObject({ considered: 5, replayed: 0, changed: 0, notReplayed: { rate_limit: 1, run_budget: 1, delegation: 1, descriptor_unknown: 2 } });
  });

  it("replays a delegated call whose chain check passed, without the chain's pass mark", () => {
    const child = recorded(live, "kb.search", "bot", "llm", { parentCallId: "p1", ruleIds: ["default.read.llm", "attenuation.checked"] });
    expect(whatIf(live, [child], RECORDS)).toMatchObject({ replayed: 1, changed: 0, sameDecisionOtherRules: 0 });
  });

  it("counts calls whose decision stays but whose rules change, and names the candidate's history gates", () => {
    const candidate = doc({
      version: "cand-3",
      rules: [{ id: "sends-wait", match: { grade: "send" }, effect: "require_approval", reason: "sends wait" }],
      rateLimits: { perPrincipal: { ratePerSecond: 1, burst: 1 } },
      budgets: { maxCallsPerRun: 3 },
    });
    const r = whatIf(candidate, history, RECORDS);
    expect(r).toMatchObject({ changed: 0, sameDecisionOtherRules: 1, candidateHistoryGates: ["rateLimits.perPrincipal", "budgets.maxCallsPerRun"] });
  });
});
