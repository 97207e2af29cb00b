import { describe, expect, it } from "vitest";
import { PolicyDocumentSchema, type PolicyDocumentInput } from "@warden/contracts/policy";
import { mayDecide, quorumOf, type ApprovalFacts } from "./approval-authority.js";

const doc = PolicyDocumentSchema.parse({
  version: "t1",
  principals: {
    alice: { kind: "human", approves: ["write", "send"] },
    carol: { kind: "human", approves: ["write"] },
    erin: { kind: "human" },
    bot: { kind: "agent", approves: ["send"] },
    svc: { kind: "service", approves: ["write", "send"] },
  },
});

const send = (mode: ApprovalFacts["mode"], requester = "dave"): ApprovalFacts => ({
  grade: "send",
  mode,
  requester,
  requesterMayConfirm: mode === "human",
});

describe("mayDecide", () => {
  it("accepts a human who approves the grade and is not the requester", () => {
    expect(mayDecide(doc, "alice", send("plan"))).toEqual({ ok: true });
    expect(mayDecide(doc, "carol", { grade: "write", mode: "llm", requester: "bot", requesterMayConfirm: false })).toEqual({ ok: true });
  });

  it("lets only a person who approves sends decide a model's send: never the agent that asked, another agent or a service", () => {
    expect(mayDecide(doc, "alice", send("llm", "bot"))).toEqual({ ok: true });
    for (const who of ["bot", "svc", "mallory", "carol"]) expect(mayDecide(doc, who, send("llm", "bot")).ok, who).toBe(false);
    // a person whose own identity a model uses does not confirm that model's send either
    expect(mayDecide(doc, "alice", send("llm", "alice"))).toMatchObject({ ok: false, reason: "alice requested this call and may not approve it" });
  });

  it("accepts a requester the document names as a person confirming their own call in human mode, even one who approves nothing", () => {
    expect(mayDecide(doc, "erin", send("human", "erin"))).toEqual({ ok: true });
  });

  it("refuses a requester the document does not name confirming their own call in human mode, since they are an agent", () => {
    const r = mayDecide(doc, "dave", send("human"));
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toMatch(/dave is not a person \(not named in the policy document/);
  });

  it("refuses a requester the document names as an agent confirming their own call in human mode", () => {
    expect(mayDecide(doc, "bot", send("human", "bot")).ok).toBe(false);
  });

  it("refuses the requester outside human mode, even a human who approves the grade", () => {
    const r = mayDecide(doc, "alice", send("plan", "alice"));
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toMatch(/requested this call/);
  });

  it("refuses the requester when requesterMayConfirm is off, whatever the mode", () => {
    const r = mayDecide(doc, "alice", { grade: "send", mode: "human", requester: "alice", requesterMayConfirm: false });
    expect(r.ok).toBe(false);
  });

  it("refuses agents, services and unknown principals even if the document lists grades for them", () => {
    for (const who of ["bot", "svc", "nobody"]) {
      const r = mayDecide(doc, who, send("plan"));
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.reason).toMatch(/not a person/);
    }
  });

  it("refuses a human who does not approve the grade", () => {
    const r = mayDecide(doc, "carol", send("plan"));
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toMatch(/may not approve send/);
  });

  it("does not let another person use the requester's confirmation right", () => {
    expect(mayDecide(doc, "carol", send("human")).ok).toBe(false);
  });
});

describe("quorumOf", () => {
  const quorumDoc = (approvalQuorum: PolicyDocumentInput["approvalQuorum"]) => PolicyDocumentSchema.parse({ version: "q1", approvalQuorum });

  it("asks one person when no entry matches, and names the default", () => {
    expect(quorumOf(quorumDoc(undefined), { tool: "notes.write", grade: "write", level: "L2" })).toMatchObject({ approvers: 1, ruleId: "default.quorum" });
  });

  it("asks two distinct people for an L5 call by default", () => {
    expect(quorumOf(quorumDoc(undefined), { tool: "notes.erase", grade: "write", level: "L5" })).toMatchObject({ approvers: 2, ruleId: "default.quorum.L5", reason: expect.stringContaining("L5") });
  });

  it("takes the first matching entry, named by its id or its index, and lets it ask more of an L5 call", () => {
    const doc = quorumDoc([{ tool: "ticket.*", approvers: 2 }, { id: "three-for-purges", grade: "write", level: "L5", approvers: 3, reason: "purges are checked by three" }]);
    expect(quorumOf(doc, { tool: "ticket.submit", grade: "write", level: "L2" })).toMatchObject({ approvers: 2, ruleId: "approvalQuorum[0]", reason: "2 distinct approvers for tool ticket.*" });
    expect(quorumOf(doc, { tool: "notes.erase", grade: "write", level: "L5" })).toEqual({ approvers: 3, ruleId: "three-for-purges", reason: "purges are checked by three" });
  });

  it("never lets a broad entry lower an L5 call's quorum: only one that names level L5 may", () => {
    const broad = quorumDoc([{ grade: ["write", "send"], approvers: 1 }]);
    const q = quorumOf(broad, { tool: "notes.erase", grade: "write", level: "L5" });
    expect(q).toMatchObject({ approvers: 2, ruleId: "default.quorum.L5" });
    expect(q.reason).toContain("approvalQuorum[0] asks 1, but only an entry that names level L5 may ask fewer");
    const explicit = quorumDoc([{ id: "ops-purge-alone", tool: "ops.purge", level: "L5", approvers: 1, reason: "the on-call engineer purges alone at night" }]);
    expect(quorumOf(explicit, { tool: "ops.purge", grade: "write", level: "L5" })).toEqual({ approvers: 1, ruleId: "ops-purge-alone", reason: "the on-call engineer purges alone at night" });
    // a tool whose level is not known is matched by no level entry
    expect(quorumOf(explicit, { tool: "ops.purge", grade: "write" })).toMatchObject({ approvers: 1, ruleId: "default.quorum" });
  });

  it("matches an action type and a condition on the args, and reads the condition aloud with the value it met", () => {
    const doc = quorumDoc([
      { id: "big-sends", grade: "send", when: { arg: "amount", gt: 1000 }, approvers: 2, reason: "a payment over 1000 needs two people" },
      { actionType: "deploy", approvers: 3 },
    ]);
    const pay = { tool: "pay.refund", grade: "send" as const, level: "L4" as const, actionType: "purchase" as const };
    expect(quorumOf(doc, { ...pay, args: { amount: 1500 } })).toEqual({ approvers: 2, ruleId: "big-sends", reason: "a payment over 1000 needs two people (amount is 1500: amount > 1000)" });
    expect(quorumOf(doc, { ...pay, args: { amount: 900 } })).toMatchObject({ approvers: 1, ruleId: "default.quorum" });
    // without the args a condition is never met
    expect(quorumOf(doc, pay)).toMatchObject({ approvers: 1 });
    expect(quorumOf(doc, { tool: "web.release", grade: "write", level: "L4", actionType: "deploy" })).toEqual({ approvers: 3, ruleId: "approvalQuorum[1]", reason: "3 distinct approvers for action deploy" });
    expect(quorumOf(doc, { tool: "web.release", grade: "write", level: "L4" })).toMatchObject({ approvers: 1 });
  });

  it("refuses a document that lowers an L5 quorum without an id and a reason", () => {
    const r = PolicyDocumentSchema.safeParse({ version: "q2", approvalQuorum: [{ level: "L5", approvers: 1 }] });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.message).toMatch(/lowers an L5 call's quorum below 2 needs an id and a reason/);
    expect(PolicyDocumentSchema.safeParse({ version: "q3", approvalQuorum: [{ id: "a", approvers: 2 }, { id: "a", approvers: 3 }] }).success).toBe(false);
  });
});
