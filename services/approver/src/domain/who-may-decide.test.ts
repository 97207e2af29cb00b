import { describe, expect, it } from "vitest";
import { type ApprovalRequested } from "@warden/contracts/events";
import { type Grade } from "@warden/contracts/descriptor";
import { PolicyDocumentSchema } from "@warden/contracts/policy";
import { argsHash } from "@warden/contracts/json";
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
