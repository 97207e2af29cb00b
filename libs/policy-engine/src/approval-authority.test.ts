import { describe, expect, it } from "vitest";
import { PolicyDocumentSchema } from "@warden/contracts";
import { mayDecide, type ApprovalFacts } from "./approval-authority.js";

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
