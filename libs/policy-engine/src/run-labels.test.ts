import { describe, expect, it } from "vitest";
import { ToolDescriptorSchema } from "@warden/contracts/descriptor";
import { PolicyDocumentSchema, resultLabelsOf, RuleWhenSchema, type RunLabelSource } from "@warden/contracts/policy";
import { descriptor, record } from "../test-support/fixtures.js";
import { evaluateCall } from "./evaluate-call.js";
import type { CallFacts } from "./evaluate.js";
import { MAX_RUN_LABEL_ENTRIES, recordRunLabels, runLabelsOf, settleRunLabels, UNTRUSTED_RULE, withRunLabelOutcomes, type RunLabelsState } from "./run-labels.js";
import { whatIf } from "./what-if.js";

const sends = "Use when the customer asked for it; the message is seen at once and cannot be taken back.";
const web = record({ name: "web.fetch", title: "Fetch a page", openWorld: true, description: "Use when a web page must be read; its content comes from anyone." });
const mail = record({ name: "mail.send", title: "Send mail", grade: "send", actionType: "external_send", description: sends });
const deploy = record({ name: "ops.deploy", title: "Deploy", grade: "write", actionType: "deploy", description: sends });
const note = record({ name: "notes.write", title: "Write a note", grade: "write", description: "Use when a note is wanted; it changes the workspace." });

const untrusted = new Map<string, RunLabelSource>([["untrusted", { label: "untrusted", callId: "c-web", tool: "web.fetch" }]]);
const doc = PolicyDocumentSchema.parse({ version: "l1", principals: { ann: { kind: "human" }, bot: { kind: "agent" } } });
const facts = (tool: typeof mail, over: Partial<CallFacts> = {}): CallFacts => ({ tool: tool.descriptor, principal: "bot", mode: "plan", flags: {}, scope: null, ...over });

describe("resultLabelsOf", () => {
  const d = (o: Parameters<typeof descriptor>[0]) => ToolDescriptorSchema.parse(descriptor(o));
  it("labels an open-world read untrusted, unless its descriptor vouches for it", () => {
    expect(resultLabelsOf(d({ openWorld: true }))).toEqual(["untrusted"]);
    expect(resultLabelsOf(d({ openWorld: true, dataLabels: { trusted: true } }))).toEqual([]);
    expect(resultLabelsOf(d({}))).toEqual([]);
  });
  it("derives secret-derived and private, and adds declared labels", () => {
    expect(resultLabelsOf(d({ secrets: ["CRM_TOKEN"], actsAs: "caller" }))).toEqual(["private", "secret-derived"]);
    expect(resultLabelsOf(d({ openWorld: true, dataLabels: { labels: ["customer-pii"] } }))).toEqual(["customer-pii", "untrusted"]);
  });
  it("refuses a label that is not a lowercase token", () => {
    expect(ToolDescriptorSchema.safeParse(descriptor({ dataLabels: { labels: ["Bad Label"] } })).success).toBe(false);
  });
});

describe("the built-in untrusted rule", () => {
  it("makes a send in an untrusted run name the result that labelled it", () => {
    const e = evaluateCall(doc, facts(mail, { runLabels: untrusted }));
    expect(e.decision).toBe("require_approval");
    expect(e.ruleIds).toEqual(["default.send.plan", UNTRUSTED_RULE]);
    expect(e.reason).toContain("result of call c-web, web.fetch");
    // the same send in a run without the label: the table alone
    expect(evaluateCall(doc, facts(mail, { runLabels: new Map() })).ruleIds).toEqual(["default.send.plan"]);
  });
  it("raises an L4 write an allow rule lifted, and leaves a workspace write alone", () => {
    const lifted = PolicyDocumentSchema.parse({ ...doc, version: "l2", rules: [{ id: "deploy-ok", match: { tool: "ops.deploy" }, effect: "allow", reason: "nightly" }] });
    expect(evaluateCall(lifted, facts(deploy, { runLabels: new Map() })).decision).toBe("allow");
    const raised = evaluateCall(lifted, facts(deploy, { runLabels: untrusted }));
    expect(raised).toMatchObject({ decision: "require_approval", ruleIds: [UNTRUSTED_RULE] });
    expect(evaluateCall(doc, facts(note, { runLabels: untrusted })).decision).toBe("allow");
  });
  it("keeps a model's send waiting for a person, naming the untrusted read too", () => {
    expect(evaluateCall(doc, facts(mail, { mode: "llm", runLabels: untrusted }))).toMatchObject({ decision: "require_approval", ruleIds: ["default.send.llm", UNTRUSTED_RULE] });
  });
});

describe("rules on runLabels", () => {
  const rules = PolicyDocumentSchema.parse({
    ...doc,
    version: "l3",
    rules: [{ id: "trifecta", match: { grade: "write" }, when: { runLabels: ["untrusted", "private"] }, effect: "deny", reason: "private and untrusted data do not leave together" }],
  });
  it("match only when the run carries every label named", () => {
    const both = new Map([...untrusted, ["private", { label: "private", callId: "c-crm", tool: "crm.get" }]]);
    expect(evaluateCall(rules, facts(note, { runLabels: both })).ruleIds).toEqual(["trifecta"]);
    expect(evaluateCall(rules, facts(note, { runLabels: untrusted })).decision).toBe("allow");
    // no labels known (a ToolView): the rule never matches
    expect(evaluateCall(rules, facts(note)).decision).toBe("allow");
  });
  it("need a condition", () => {
    expect(RuleWhenSchema.safeParse({}).success).toBe(false);
    expect(RuleWhenSchema.safeParse({ runLabels: ["Untrusted"] }).success).toBe(false);
  });
});

describe("a run's label key", () => {
  const entry = (callId: string, labels = ["untrusted"]) => ({ callId, tool: "web.fetch", domain: "web", labels });
  it("counts a result once it finished ok (or may have run), not while held or after a failure", () => {
    const held = recordRunLabels(undefined, entry("c1"));
    if (held.kind !== "next") throw new Error("recorded");
    expect(runLabelsOf(held.next).size).toBe(0);
    expect([...runLabelsOf(settleRunLabels(held.next, "c1", "ok")).keys()]).toEqual(["untrusted"]);
    expect([...runLabelsOf(settleRunLabels(held.next, "c1", "unknown")).keys()]).toEqual(["untrusted"]);
    expect(settleRunLabels(held.next, "c1", "released")).toEqual({ entries: [] });
    // what the stream already says of a held entry counts before the settlement writes it
    expect(runLabelsOf(withRunLabelOutcomes(held.next, new Map([["c1", "ok"]]))).get("untrusted")?.callId).toBe("c1");
  });
  it("keeps nothing a run already has, and is idempotent", () => {
    let s: RunLabelsState = { entries: [{ ...entry("c1"), state: "ok" }] };
    expect(recordRunLabels(s, entry("c2")).kind).toBe("already");
    expect(recordRunLabels(s, entry("c1")).kind).toBe("already");
    const r = recordRunLabels(s, entry("c3", ["private"]));
    if (r.kind !== "next") throw new Error("recorded");
    s = r.next;
    expect(s.entries.map((e) => e.callId)).toEqual(["c1", "c3"]);
  });
  it("refuses to keep past its cap when every entry is held", () => {
    const full: RunLabelsState = { entries: Array.from({ length: MAX_RUN_LABEL_ENTRIES }, (_, i) => ({ ...entry(`h${i}`), state: "held" as const })) };
    expect(recordRunLabels(full, entry("x", ["private"])).kind).toBe("full");
  });
});

describe("what-if over recorded labels", () => {
  it("replays the run's labels the decision recorded", () => {
    const lifted = PolicyDocumentSchema.parse({ ...doc, version: "l4", rules: [{ id: "deploy-ok", match: { tool: "ops.deploy" }, effect: "allow", reason: "nightly" }] });
    const call = { callId: "d1", requestedAt: "2030-01-01T00:00:00Z", tool: "ops.deploy", version: "1.0.0", descriptorHash: deploy.descriptorHash, principal: "bot", mode: "plan" as const, flags: {}, scope: null, policyVersion: "l0", reason: "external write (L4)" };
    const report = whatIf(lifted, [
      { ...call, decision: "require_approval", ruleIds: ["default.level.L4.plan"], runLabels: [] },
      { ...call, callId: "d2", decision: "require_approval", ruleIds: ["default.level.L4.plan"], runLabels: [...untrusted.values()] },
    ], [deploy, web]);
    // the rule lifts the call of a clean run; the one after an untrusted read still waits
    expect(report.changes.flatMap((c) => c.callIds)).toEqual(["d1"]);
  });
});
