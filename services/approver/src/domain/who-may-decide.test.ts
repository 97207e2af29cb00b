import { describe, expect, it } from "vitest";
import { type ApprovalDenied, type ApprovalGranted, type ApprovalRequested } from "@warden/contracts/events";
import { type Grade } from "@warden/contracts/descriptor";
import { PolicyDocumentSchema } from "@warden/contracts/policy";
import { argsHash } from "@warden/contracts/json";
import { mayReadTrace } from "./trace-reader.js";
import { whoMayDecide } from "./who-may-decide.js";

const doc = PolicyDocumentSchema.parse({
  version: "v1",
  principals: {
    alice: { kind: "human", approves: ["send", "write"] },
    bob: { kind: "human", approves: ["write"] },
    carol: { kind: "human", approves: ["send"] },
    bot: { kind: "agent", approves: [] },
  },
});

function requested(o: { grade?: Grade; principal?: string; mode?: ApprovalRequested["mode"]; requesterMayConfirm?: boolean; chain?: string[] } = {}): ApprovalRequested {
  const args = { text: "hi" };
  return {
    v: 1,
    type: "ApprovalRequested",
    eventId: "e1",
    callId: "call1",
    domain: "customer",
    tool: "customer.message",
    principal: o.principal ?? "bot",
    mode: o.mode ?? "plan",
    ts: "2030-01-01T00:00:00.000Z",
    causationId: "pc1",
    causeHash: `sha256:${"c".repeat(64)}`,
    correlationId: "run1",
    data: {
      version: "1.0.0",
      descriptorHash: `sha256:${"d".repeat(64)}`,
      grade: o.grade ?? "send",
      argsHash: argsHash(args),
      approvalId: "ap1",
      argsPreview: "{}",
      args,
      title: "Message",
      expiresAt: "2030-01-01T00:10:00.000Z",
      approvers: { human: true, requesterMayConfirm: o.requesterMayConfirm ?? false },
      reason: "a person must confirm",
      ruleIds: ["default.send.plan"],
      policyVersion: "v1",
      ...(o.chain === undefined ? {} : { chain: o.chain.map((principal) => ({ callId: `c-${principal}`, principal, mode: "human" as const, tool: "agent.x" })) }),
    },
  };
}

describe("whoMayDecide", () => {
  it("names exactly the people the document lets approve the request's grade", () => {
    expect(whoMayDecide(doc, requested({ grade: "send" }))).toEqual(["alice", "carol"]);
    expect(whoMayDecide(doc, requested({ grade: "write" }))).toEqual(["alice", "bob"]);
  });

  it("leaves out the requester, and whoever delegated the task that asks", () => {
    expect(whoMayDecide(doc, requested({ principal: "alice" }))).toEqual(["carol"]);
    expect(whoMayDecide(doc, requested({ chain: ["carol"] }))).toEqual(["alice"]);
  });

  it("adds the requester where they may confirm their own call (mode human)", () => {
    expect(whoMayDecide(doc, requested({ principal: "bob", mode: "human", requesterMayConfirm: true }))).toEqual(["alice", "bob", "carol"]);
  });
});

describe("mayReadTrace: whose calls' timelines the approver shows a person", () => {
  const asked = requested({ grade: "send" });
  const { data: _data, type: _type, ...envelope } = asked;
  const granted: ApprovalGranted = {
    ...envelope,
    type: "ApprovalGranted",
    data: {
      approvalId: "ap1", approver: "erin", argsHash: asked.data.argsHash, descriptorHash: asked.data.descriptorHash, version: "1.0.0",
      grantedAt: "2030-01-01T00:01:00.000Z", expiresAt: "2030-01-01T00:06:00.000Z", nonce: "n1", signature: "c2ln", keyId: "k1",
      coApprovers: [{ approver: "frank", at: "2030-01-01T00:00:30.000Z" }],
    },
  };
  const denied: ApprovalDenied = { ...envelope, type: "ApprovalDenied", data: { approvalId: "ap1", approver: "dave", reason: "not today" } };

  it("lets in whoever granted it (in a quorum too), denied it, or may decide it while it is open, and nobody else", () => {
    expect(mayReadTrace(doc, "erin", [asked, granted])).toBe(true);
    expect(mayReadTrace(doc, "frank", [asked, granted])).toBe(true);
    expect(mayReadTrace(doc, "dave", [asked, denied])).toBe(true);
    // the document lets alice and carol approve sends, while the approval is open; bob approves writes only; the bot asked
    expect(mayReadTrace(doc, "alice", [asked])).toBe(true);
    expect(mayReadTrace(doc, "carol", [asked])).toBe(true);
    // decided by dave: what came of it is not carol's to see
    expect(mayReadTrace(doc, "carol", [asked, denied])).toBe(false);
    expect(mayReadTrace(doc, "bob", [asked, granted, denied])).toBe(false);
    expect(mayReadTrace(doc, "bot", [asked])).toBe(false);
    // a call that never waited for a person is nobody's to read here
    expect(mayReadTrace(doc, "alice", [])).toBe(false);
  });
});
