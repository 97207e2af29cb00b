import { describe, expect, it } from "vitest";
import type { PendingApproval } from "@warden/contracts/approval";
import { approvalCardText } from "./approval-card.js";

const base: PendingApproval = {
  approvalId: "a1",
  callId: "c1",
  domain: "notes",
  tool: "notes.erase",
  title: "Erase a note",
  grade: "write",
  principal: "planner",
  mode: "plan",
  argsHash: `sha256:${"a".repeat(64)}`,
  argsPreview: '{"id":"n1"}',
  args: { id: "n1" },
  reason: "destructive or admin (L5): a person confirms it, whoever asks",
  requestedAt: "2030-01-01T00:00:00.000Z",
  expiresAt: "2030-01-01T01:00:00.000Z",
  approvers: { human: true, requesterMayConfirm: false },
  deciders: ["alice", "bob"],
};

describe("approvalCardText", () => {
  it("shows the level by its name and the action type, the quorum with the entry that set it, and a preview's binding on an L5 card", () => {
    const text = approvalCardText({
      ...base,
      level: "L5",
      actionType: "delete",
      quorum: 2,
      quorumRule: { id: "default.quorum.L5", reason: "destructive or admin (L5): two distinct people confirm it" },
      preview: { data: { erases: "n1" }, hash: `sha256:${"b".repeat(64)}`, executorId: "x1" },
    });
    expect(text).toContain("  level     L5 destructive_or_admin, action delete");
    expect(text).toContain("  decides   alice, bob; 2 distinct approvers needed [default.quorum.L5: destructive or admin (L5): two distinct people confirm it]");
    expect(text).toContain(`(the tool's dry run; a grant binds sha256:bbbbbbbbbbbb…, checked again before it runs)`);
  });

  it("leaves out the level line of a card that has none, and says nothing of the default quorum of one", () => {
    const text = approvalCardText({ ...base, quorum: 1, quorumRule: { id: "default.quorum", reason: "one person decides" } });
    expect(text).not.toContain("level");
    expect(text).toMatch(/decides {3}alice, bob$/m);
  });

  it("does not offer the requester's own confirmation when a quorum is needed", () => {
    const text = approvalCardText({ ...base, mode: "human", approvers: { human: true, requesterMayConfirm: true }, quorum: 2, quorumRule: { id: "q", reason: "two" } });
    expect(text).toMatch(/decides {3}alice, bob; 2 distinct approvers needed \[q: two\]/);
  });

  it("says whose credentials the tool acts with: those of the principal at the top of the chain, or the service's", () => {
    const chain = [{ callId: "p1", principal: "alice", mode: "human" as const, tool: "agent.triage" }];
    expect(approvalCardText({ ...base, principal: "agent-triage", chain, onBehalfOf: "alice via agent.triage", actsAs: "caller" })).toContain("  acts as   alice, with alice's own credentials");
    expect(approvalCardText({ ...base, actsAs: "service" })).toContain("  acts as   the service (its executor's own credentials)");
    expect(approvalCardText(base)).not.toContain("acts as");
  });

  it("says whether the call may be approved for the session, and why not", () => {
    expect(approvalCardText({ ...base, sessionGrant: { allowed: true } })).toContain("  session   may be approved for the session (warden approve --session DURATION)");
    expect(approvalCardText({ ...base, sessionGrant: { allowed: false, why: "a model's send is never granted for the session" } })).toContain("  session   not for the session: a model's send is never granted for the session");
    expect(approvalCardText(base)).not.toContain("session");
  });
});
