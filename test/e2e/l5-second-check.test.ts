import { describe, expect, it } from "vitest";
import type { ApprovalGranted } from "@warden/contracts/events";
import type { PolicyDocumentInput } from "@warden/contracts/policy";
import type { PendingApproval } from "@warden/contracts/approval";
import { defineTool } from "@warden/executor";
import { putPolicyDocument } from "@warden/policy";
import { callEvents, eventTypes, eventually } from "@warden/testing";
import { z } from "zod";
import { runWarden } from "../support/cli.js";
import { cardIn } from "../support/approval-cards.js";
import { usualPrincipals } from "../support/usual-principals.js";
import { useTestWarden } from "../support/use-test-warden.js";

/**
 * L5 (destructive or admin), over the real services: each call is decided on its own (never for a
 * session), by two distinct people unless the policy document says otherwise by an entry that
 * names L5, and the grant binds the dry run the people saw, which the executor runs again.
 */
describe("L5 calls: their own decision, two people, and the dry run they saw", () => {
  const vault = new Map<string, string>();
  const erase = defineTool({
    name: "vault.erase",
    version: "1.0.0",
    title: "Erase a vault entry",
    description: "Use when an entry must be erased for good; nothing brings it back.",
    grade: "write",
    destructive: true,
    actionType: "delete",
    input: z.strictObject({ id: z.string() }),
    preview: ({ id }) => ({ erases: id, content: vault.get(id) ?? null }),
    handler: ({ id }) => {
      const had = vault.delete(id);
      return { erased: id, had };
    },
  });
  const policy = (over: Partial<PolicyDocumentInput> = {}): PolicyDocumentInput => ({
    version: "e2e-l5",
    principals: {
      ...usualPrincipals("alice", "planner"),
      bob: { kind: "human", approves: ["write", "send"] },
      carol: { kind: "human", approves: ["write", "send"] },
    },
    // the document would let people grant writes and sends for a session: L5 still never is
    sessionGrants: { grades: ["write", "send"], maxTtlSeconds: 1800 },
    ...over,
  });

  const t = useTestWarden({ policy: policy() }, async (w) => {
    await w.startExecutor("vault", [erase]);
    const planner = await w.agent("planner");
    const alice = await w.approver("alice");
    const bob = await w.approver("bob");
    const carol = await w.approver("carol");
    return { planner, alice, bob, carol };
  });

  const cardOf = (callId: string, who = t.alice) => cardIn(who, (a) => a.callId === callId);
  /** A card decided under `version` by both the policy and the approver (each follows the document on its own); earlier ones are denied. */
  const cardUnder = (version: string, id: string, quorumRuleId?: string): Promise<PendingApproval> =>
    eventually(async () => {
      const r = await t.planner.call("vault.erase", { id }, { mode: "plan" });
      const card = await cardOf(r.callId);
      const current = card.policyVersion === version && (quorumRuleId === undefined || card.quorumRule?.id === quorumRuleId);
      if (!current) await t.alice.deny(card.approvalId, card.argsHash, "asked under the previous document");
      expect(current).toBe(true);
      return card;
    });
  const grantOf = async (callId: string) => (await callEvents(t.w.bus, callId)).find((e): e is ApprovalGranted => e.type === "ApprovalGranted");

  it("needs two distinct approvers by default, shows level, action type, quorum rule and the dry run's hash on the card, and binds that hash in the grant", async () => {
    vault.set("v1", "old contract");
    const r = await t.planner.call("vault.erase", { id: "v1" }, { mode: "plan" });
    expect(r.status).toBe("awaiting_approval");
    const card = await cardOf(r.callId);
    expect(card).toMatchObject({
      level: "L5",
      actionType: "delete",
      quorum: 2,
      quorumRule: { id: "default.quorum.L5" },
      preview: { data: { erases: "v1", content: "old contract" }, hash: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) },
    });
    expect(card.riskReasons).toContain("L5 (destructive or admin): decided call by call, never for a session");

    expect(await t.alice.approve(card.approvalId, card.argsHash)).toMatchObject({ ok: true, quorum: { have: 1, need: 2 } });
    expect(eventTypes(await callEvents(t.w.bus, r.callId))).not.toContain("ApprovalGranted");
    expect(await t.bob.approve(card.approvalId, card.argsHash)).toMatchObject({ ok: true, quorum: { have: 2, need: 2 } });
    expect(await t.planner.awaitCall(r.callId, "vault.erase", { timeoutMs: 10_000 })).toMatchObject({ ok: true, data: { erased: "v1", had: true } });
    expect(await grantOf(r.callId)).toMatchObject({ data: { approver: "bob", coApprovers: [expect.objectContaining({ approver: "alice" })], previewHash: card.preview?.hash } });
  });

  it("refuses to grant an L5 call for the session, and an edit of the args its dry run showed", async () => {
    vault.set("v2", "draft");
    const r = await t.planner.call("vault.erase", { id: "v2" }, { mode: "plan" });
    const card = await cardOf(r.callId);
    const session = await t.alice.approve(card.approvalId, card.argsHash, { session: { ttlSeconds: 600 } });
    expect(session).toMatchObject({ ok: false, refusal: "SESSION_NOT_ALLOWED", message: "an L5 (destructive_or_admin) call is never granted for the session: each one needs its own decision" });
    const edited = await t.alice.approve(card.approvalId, card.argsHash, { args: { id: "v3" } });
    expect(edited).toMatchObject({ ok: false, refusal: "EDIT_NOT_ALLOWED" });
    expect(await t.alice.deny(card.approvalId, card.argsHash, "not this one")).toMatchObject({ ok: true });
    expect(vault.get("v2")).toBe("draft");
  });

  it("never runs a call whose dry run changed between the card and the run: PREVIEW_CHANGED, nothing erased", async () => {
    vault.set("v4", "first version");
    const r = await t.planner.call("vault.erase", { id: "v4" }, { mode: "plan" });
    const card = await cardOf(r.callId);
    expect(card.preview?.data).toEqual({ erases: "v4", content: "first version" });
    expect(await t.alice.approve(card.approvalId, card.argsHash)).toMatchObject({ ok: true, quorum: { have: 1, need: 2 } });
    // someone changes the entry while the approval waits: the people approved erasing what they saw
    vault.set("v4", "a newer version nobody looked at");
    expect(await t.carol.approve(card.approvalId, card.argsHash)).toMatchObject({ ok: true, quorum: { have: 2, need: 2 } });
    const result = await t.planner.awaitCall(r.callId, "vault.erase", { timeoutMs: 10_000 });
    expect(result).toMatchObject({ ok: false, error: { code: "PREVIEW_CHANGED" } });
    const rejected = (await callEvents(t.w.bus, r.callId)).find((e) => e.type === "ToolCallRejected");
    expect(rejected).toMatchObject({ data: { stage: "executor", error: { code: "PREVIEW_CHANGED", details: { approvedHash: card.preview?.hash } } } });
    expect(eventTypes(await callEvents(t.w.bus, r.callId))).not.toContain("ToolCallStarted");
    expect(vault.get("v4")).toBe("a newer version nobody looked at");
  });

  it("never counts the requester: a person asking in human mode cannot confirm their own L5 call", async () => {
    const own = await t.w.person("alice");
    vault.set("v5", "x");
    const r = await own.call("vault.erase", { id: "v5" }, { mode: "human" });
    expect(r.status).toBe("awaiting_approval");
    const card = await cardOf(r.callId, t.bob);
    expect(card).toMatchObject({ quorum: 2, approvers: { requesterMayConfirm: true } });
    expect(await t.alice.approve(card.approvalId, card.argsHash)).toMatchObject({ ok: false, refusal: "NOT_AUTHORISED" });
    expect(await t.bob.deny(card.approvalId, card.argsHash, "no")).toMatchObject({ ok: true });
  });

  it("lowers the quorum only by an entry that names L5, recorded on the card, and still never for the session", async () => {
    // a broad entry asking one approver for writes does not loosen L5
    expect(await putPolicyDocument(t.w.bus, policy({ version: "e2e-l5-broad", approvalQuorum: [{ grade: "write", approvers: 1 }] }))).toMatchObject({ ok: true });
    vault.set("v6", "y");
    const broad = await cardUnder("e2e-l5-broad", "v6");
    expect(broad).toMatchObject({ quorum: 2, quorumRule: { id: "default.quorum.L5", reason: expect.stringContaining("approvalQuorum[0] asks 1") } });
    await t.alice.deny(broad.approvalId, broad.argsHash, "testing");

    const explicit = { id: "vault-erase-alone", tool: "vault.erase", level: "L5" as const, approvers: 1, reason: "the vault keeper erases alone" };
    expect(await putPolicyDocument(t.w.bus, policy({ version: "e2e-l5-explicit", approvalQuorum: [explicit] }))).toMatchObject({ ok: true });
    const card = await cardUnder("e2e-l5-explicit", "v6", "vault-erase-alone");
    expect(card).toMatchObject({ quorum: 1, quorumRule: { id: "vault-erase-alone", reason: "the vault keeper erases alone" } });
    expect(await t.alice.approve(card.approvalId, card.argsHash, { session: { ttlSeconds: 600 } })).toMatchObject({ ok: false, refusal: "SESSION_NOT_ALLOWED" });
    expect(await t.alice.approve(card.approvalId, card.argsHash)).toMatchObject({ ok: true, decision: "grant" });
    expect(await t.planner.awaitCall(card.callId, "vault.erase", { timeoutMs: 10_000 })).toMatchObject({ ok: true, data: { erased: "v6" } });
    await putPolicyDocument(t.w.bus, policy({ version: "e2e-l5-after" }));
  });

  it("shows level and action type in `warden tools list` and on `warden approvals`", async () => {
    const list = await runWarden(t.w.nats.home.dir, "tools", "list");
    expect(list.code).toBe(0);
    expect(list.out).toMatch(/vault\.erase\s+1\.0\.0\s+write\s+L5\s+delete\s+enabled/);
    vault.set("v7", "z");
    const r = await t.planner.call("vault.erase", { id: "v7" }, { mode: "plan" });
    await cardOf(r.callId);
    const approvals = await runWarden(t.w.nats.home.dir, "approvals", "--as", "alice");
    expect(approvals.code).toBe(0);
    expect(approvals.out).toContain("  level     L5 destructive_or_admin, action delete");
    expect(approvals.out).toMatch(/decides {3}.*2 distinct approvers needed \[default\.quorum\.L5: /);
  });
});
