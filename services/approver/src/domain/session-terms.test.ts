import { describe, expect, it } from "vitest";
import { type ApprovalGranted, type ApprovalRequested, type ToolPolicyChecked } from "@warden/contracts/events";
import { type CallMode, type Grade } from "@warden/contracts/descriptor";
import { PolicyDocumentSchema, type SessionTerms } from "@warden/contracts/policy";
import { sessionApproverMayDecide, sessionGrantRefusal, sessionMismatch, sessionTermsOf } from "./session-terms.js";

const NOW = new Date("2030-01-01T00:00:00.000Z");
const HASH = `sha256:${"d".repeat(64)}`;
const doc = PolicyDocumentSchema.parse({
  version: "v1",
  principals: { alice: { kind: "human", approves: ["write", "send"] }, carol: { kind: "human", approves: ["send"] } },
  approvalQuorum: [{ tool: "notes.pair", approvers: 2 }],
});

const envelope = (mode: CallMode, principal = "planner", tool = "notes.write") => ({
  v: 1 as const,
  eventId: "e1",
  callId: "call1",
  domain: "notes",
  tool,
  principal,
  mode,
  ts: NOW.toISOString(),
  causationId: "c0",
  causeHash: HASH,
  correlationId: "run1",
});

function requested(grade: Grade = "write", args: Record<string, unknown> = { folder: "ops", n: 1 }, chain: string[] = []): ApprovalRequested {
  return {
    ...envelope("llm"),
    type: "ApprovalRequested",
    data: {
      approvalId: "appr1",
      version: "1.0.0",
      descriptorHash: HASH,
      grade,
      argsHash: HASH,
      args: args as never,
      argsPreview: "{}",
      title: "Write a note",
      expiresAt: "2030-01-01T01:00:00.000Z",
      approvers: { human: true, requesterMayConfirm: false },
      reason: "a model's write waits for a person",
      ruleIds: ["default.write.llm"],
      policyVersion: "v1",
      level: "L2",
      chain: chain.map((principal, i) => ({ callId: `p${i}`, principal, mode: "llm" as const, tool: "agent.delegate" })),
    },
  };
}

function checked(o: { mode?: CallMode; principal?: string; tool?: string; grade?: Grade; version?: string; args?: Record<string, unknown> } = {}): ToolPolicyChecked {
  return {
    ...envelope(o.mode ?? "llm", o.principal, o.tool),
    type: "ToolPolicyChecked",
    data: {
      version: o.version ?? "1.0.0",
      descriptorHash: HASH,
      grade: o.grade ?? "write",
      argsHash: HASH,
      args: (o.args ?? { folder: "ops", n: 2 }) as never,
      decision: "require_approval",
      reason: "a model's write waits for a person",
      ruleIds: ["default.write.llm"],
      policyVersion: "v1",
    },
  } as ToolPolicyChecked;
}

function sessionGrant(session: SessionTerms): ApprovalGranted & { data: { session: SessionTerms } } {
  return {
    ...envelope("llm"),
    type: "ApprovalGranted",
    data: {
      approvalId: "appr0",
      approver: "alice",
      argsHash: HASH,
      descriptorHash: HASH,
      version: "1.0.0",
      grantedAt: NOW.toISOString(),
      expiresAt: "2030-01-01T00:10:00.000Z",
      nonce: "n",
      signature: "s",
      keyId: "k",
      session,
    },
  };
}

describe("sessionGrantRefusal", () => {
  it("allows a write for the session within the document's lifetime when the constraints hold for the granted args", () => {
    expect(sessionGrantRefusal(doc, requested(), 1, { ttlSeconds: 3600, args: { folder: { equals: "ops" }, n: { max: 5 } } }, { folder: "ops", n: 1 })).toBeUndefined();
  });

  it("refuses a send by default, a quorum, a lifetime over the maximum and constraints the granted args miss", () => {
    expect(sessionGrantRefusal(doc, { ...requested("send"), mode: "plan" }, 1, { ttlSeconds: 60 }, {})).toMatch(/for write calls only, not send/);
    expect(sessionGrantRefusal(doc, requested(), 2, { ttlSeconds: 60 }, {})).toMatch(/needs 2 distinct approvers/);
    expect(sessionGrantRefusal(doc, requested(), 1, { ttlSeconds: 3601 }, {})).toMatch(/at most 3600 s/);
    expect(sessionGrantRefusal(doc, requested(), 1, { ttlSeconds: 60, args: { folder: { prefix: "hr" } } }, { folder: "ops" })).toMatch(/folder does not start with "hr"/);
    const none = PolicyDocumentSchema.parse({ version: "v2", sessionGrants: { grades: [] } });
    expect(sessionGrantRefusal(none, requested(), 1, { ttlSeconds: 60 }, {})).toMatch(/allows no session grants/);
  });

  it("refuses an L5 call for the session whatever the document allows, even with a quorum of one", () => {
    const l5 = requested("send");
    const card = { ...l5, data: { ...l5.data, level: "L5" as const } };
    const open = PolicyDocumentSchema.parse({ version: "v6", sessionGrants: { grades: ["write", "send"] } });
    expect(sessionGrantRefusal(open, card, 1, { ttlSeconds: 60 }, {})).toBe("an L5 (destructive_or_admin) call is never granted for the session: each one needs its own decision");
  });

  it("refuses a model's send for the session whatever the document allows: a person confirms each one", () => {
    const open = PolicyDocumentSchema.parse({ version: "v8", sessionGrants: { grades: ["write", "send"] } });
    expect(sessionGrantRefusal(open, requested("send"), 1, { ttlSeconds: 60 }, {})).toBe("a model's send is never granted for the session: a person confirms each one (default.send.llm)");
    expect(sessionGrantRefusal(open, { ...requested("send"), mode: "plan" }, 1, { ttlSeconds: 60 }, {})).toBeUndefined();
  });

  it("makes terms that end ttlSeconds from now and cover any args when none are given, or only the granted call's argument names when closed", () => {
    expect(sessionTermsOf({ ttlSeconds: 90 }, NOW)).toEqual({ expiresAt: "2030-01-01T00:01:30.000Z", args: {} });
    expect(sessionTermsOf({ ttlSeconds: 90, closed: true }, NOW, { n: 1, folder: "ops" })).toEqual({ expiresAt: "2030-01-01T00:01:30.000Z", args: {}, argNames: ["folder", "n"] });
  });
});

describe("sessionMismatch", () => {
  const grant = sessionGrant({ expiresAt: "2030-01-01T00:30:00.000Z", args: { folder: { oneOf: ["ops", "dev"] } } });

  it("covers a later call of the same principal, mode and tool version whose args meet the constraints", () => {
    expect(sessionMismatch(grant, checked(), doc, NOW, { level: "L2" })).toBeUndefined();
    expect(sessionMismatch(grant, checked({ args: { folder: "dev", n: 9 } }), doc, NOW, { level: "L2" })).toBeUndefined();
  });

  it("covers a delegated call only for the principal the granted call ran for, whose credentials it would spend", () => {
    const forAlice = (c: ToolPolicyChecked): ToolPolicyChecked => ({ ...c, data: { ...c.data, onBehalfOf: "alice" } });
    const grantedForAlice = sessionGrant({ ...grant.data.session, onBehalfOf: "alice" });
    expect(sessionMismatch(grantedForAlice, forAlice(checked()), doc, NOW, { level: "L2" })).toBeUndefined();
    expect(sessionMismatch(grantedForAlice, { ...forAlice(checked()), data: { ...checked().data, onBehalfOf: "bob" } }, doc, NOW, { level: "L2" })).toBe("runs on behalf of another principal");
    // a grant that says for no one covers only calls that run for its own principal
    expect(sessionMismatch(grant, forAlice(checked()), doc, NOW, { level: "L2" })).toBe("runs on behalf of another principal");
    expect(sessionTermsOf({ ttlSeconds: 90 }, NOW, undefined, "alice")).toMatchObject({ onBehalfOf: "alice" });
  });

  it("does not cover another principal, mode, tool or version, args outside it, an expired grant, or what the document no longer allows", () => {
    expect(sessionMismatch(grant, checked({ principal: "other" }), doc, NOW, { level: "L2" })).toBe("another principal");
    expect(sessionMismatch(grant, checked({ mode: "plan" }), doc, NOW, { level: "L2" })).toBe("another mode");
    expect(sessionMismatch(grant, checked({ tool: "notes.erase" }), doc, NOW, { level: "L2" })).toBe("another tool version");
    expect(sessionMismatch(grant, checked({ version: "1.0.1" }), doc, NOW, { level: "L2" })).toBe("another tool version");
    expect(sessionMismatch(grant, checked({ args: { folder: "hr", n: 1 } }), doc, NOW, { level: "L2" })).toMatch(/folder is not one of/);
    expect(sessionMismatch(grant, checked(), doc, new Date("2030-01-01T00:30:00.000Z"), { level: "L2" })).toBe("expired");
    const stricter = PolicyDocumentSchema.parse({ version: "v3", sessionGrants: { grades: ["send"] } });
    expect(sessionMismatch(grant, checked(), stricter, NOW, { level: "L2" })).toMatch(/no longer allows session grants for write/);
    const quorum = PolicyDocumentSchema.parse({ version: "v4", approvalQuorum: [{ tool: "notes.*", approvers: 2 }] });
    expect(sessionMismatch(grant, checked(), quorum, NOW, { level: "L2" })).toBe("the call needs a quorum");
    // a document that shortened session grants shortens those in force
    const shorter = PolicyDocumentSchema.parse({ version: "v5", sessionGrants: { grades: ["write"], maxTtlSeconds: 60 } });
    expect(sessionMismatch(grant, checked(), shorter, new Date(NOW.getTime() + 61_000), { level: "L2" })).toMatch(/older than the policy document's sessionGrants.maxTtlSeconds/);
    expect(sessionMismatch(grant, checked(), shorter, new Date(NOW.getTime() + 59_000), { level: "L2" })).toBeUndefined();
    const closed = sessionGrant({ expiresAt: "2030-01-01T00:30:00.000Z", args: {}, argNames: ["folder", "n"] });
    expect(sessionMismatch(closed, checked({ args: { folder: "ops", n: 1, force: true } }), doc, NOW, { level: "L2" })).toBe("force is not an argument the approved call had");
  });

  it("never covers an L5 call, even with a grant that would cover it otherwise", () => {
    expect(sessionMismatch(grant, checked(), doc, NOW, { level: "L5" })).toBe("an L5 call is never covered by a session grant");
  });

  it("never covers a model's send, even where the document allows session grants for sends", () => {
    const open = PolicyDocumentSchema.parse({ version: "v9", sessionGrants: { grades: ["write", "send"] } });
    expect(sessionMismatch(grant, checked({ grade: "send" }), open, NOW, { level: "L4" })).toBe("a model's send is never covered by a session grant");
    const planGrant = { ...grant, mode: "plan" as const };
    expect(sessionMismatch(planGrant, checked({ grade: "send", mode: "plan" }), open, NOW, { level: "L4" })).toBeUndefined();
  });

  it("does not cover a call whose args make it need a quorum", () => {
    const over = PolicyDocumentSchema.parse({ version: "v7", approvalQuorum: [{ tool: "notes.write", when: { arg: "n", gt: 10 }, approvers: 2 }] });
    expect(sessionMismatch(grant, checked({ args: { folder: "ops", n: 5 } }), over, NOW, { level: "L2" })).toBeUndefined();
    expect(sessionMismatch(grant, checked({ args: { folder: "ops", n: 50 } }), over, NOW, { level: "L2" })).toBe("the call needs a quorum");
    expect(sessionMismatch(grant, checked(), doc, NOW, undefined)).toMatch(/level is not known/);
  });
});

describe("sessionApproverMayDecide", () => {
  it("holds while the maker may still approve the grade, and never for a call the maker delegated", () => {
    expect(sessionApproverMayDecide(doc, "alice", requested())).toBe(true);
    expect(sessionApproverMayDecide(doc, "carol", requested())).toBe(false);
    expect(sessionApproverMayDecide(doc, "alice", requested("write", {}, ["alice"]))).toBe(false);
  });
});
