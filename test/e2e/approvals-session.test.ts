import { describe, expect, it } from "vitest";
import { type ApprovalGranted, type ToolResult } from "@warden/contracts/events";
import { consumerName, STREAM_CALLS } from "@warden/contracts/subjects";
import { type PendingApproval } from "@warden/contracts/approval";
import { type JsonValue } from "@warden/contracts/json";
import { defineTool } from "@warden/executor";
import { z } from "zod";
import { callEvents, eventTypes, eventually } from "@warden/testing";
import { cardIn } from "../support/approval-cards.js";
import { usualPrincipals } from "../support/usual-principals.js";
import { useTestWarden } from "../support/use-test-warden.js";

/** Session grants: a person approves once "for the session", later matching calls run without asking until it expires or is revoked. */
describe("approvals: grants for the session", () => {
  const runs: { folder: string; n: number }[] = [];
  const tool = defineTool({
    name: "notes.write",
    version: "1.0.0",
    title: "Write a note",
    description: "Use when testing grants for the session.",
    grade: "write",
    idempotent: false,
    timeoutMs: 3_000,
    input: z.strictObject({ folder: z.string(), n: z.int() }),
    handler: async (args) => {
      runs.push(args);
      return args;
    },
  });
  const startNotes = () => t.w.startExecutor("notes", [tool]);

  const t = useTestWarden({
    demo: true,
    policy: {
      version: "e2e-session",
      principals: {
        ...usualPrincipals("alice", "olga", "planner"),
        bob: { kind: "human", approves: ["write"] },
        other: { kind: "agent" },
      },
      llm: { showWrite: ["notes.write"] },
      sessionGrants: { grades: ["write"], maxTtlSeconds: 1800 },
    },
  }, async (w) => ({
    planner: await w.agent("planner"),
    alice: await w.approver("alice"),
    bob: await w.approver("bob"),
  }));

  const write = (folder: string, n: number, agent = t.planner) => agent.call("notes.write", { folder, n }, { mode: "llm" });
  const settled = (r: ToolResult) => (r.status === "awaiting_approval" || r.status === "pending" ? t.planner.awaitCall(r.callId, "notes.write", { timeoutMs: 10_000 }) : r);
  const cardOf = (callId: string, who = t.alice) => cardIn(who, (a) => a.callId === callId);
  const grantOf = async (callId: string) => (await callEvents(t.w.bus, callId)).find((e): e is ApprovalGranted => e.type === "ApprovalGranted");
  const isPending = async (callId: string) => {
    const p = await t.alice.pending();
    return p.ok && p.value.some((a: PendingApproval) => a.callId === callId);
  };

  it("runs later matching calls without asking, asks for a call outside its constraints, lists it, and stops granting once revoked", async () => {
    const executor = await startNotes();
    const first = await write("ops", 1);
    expect(first.status).toBe("awaiting_approval");
    const card = await cardOf(first.callId);
    const granted = await t.alice.approve(card.approvalId, card.argsHash, { session: { ttlSeconds: 600, args: { folder: { equals: "ops" } } } });
    expect(granted).toMatchObject({ ok: true, decision: "grant", session: { grantId: first.callId } });
    expect(await settled(first)).toMatchObject({ ok: true, data: { folder: "ops", n: 1 } });
    const made = await grantOf(first.callId);
    // for whom the granted call ran: a later call is covered only when it runs for the same principal
    expect(made?.data.session).toEqual({ args: { folder: { equals: "ops" } }, expiresAt: granted.ok ? granted.session?.expiresAt : "", onBehalfOf: "planner" });

    // the same principal, mode and tool, args within the constraints: granted in alice's name, nobody asked
    const second = await write("ops", 2);
    expect(await settled(second)).toMatchObject({ ok: true, data: { folder: "ops", n: 2 } });
    const given = await grantOf(second.callId);
    expect(given?.data).toMatchObject({ approver: "alice", bySession: { grantId: first.callId, approvalId: card.approvalId } });
    expect(given?.data.session).toBeUndefined();
    expect(runs).toEqual([{ folder: "ops", n: 1 }, { folder: "ops", n: 2 }]);

    // outside the constraints, or another principal: a person is asked
    const outside = await write("hr", 3);
    expect(outside.status).toBe("awaiting_approval");
    await cardOf(outside.callId);
    const other = await write("ops", 4, await t.w.agent("other"));
    expect(other.status).toBe("awaiting_approval");
    await cardOf(other.callId);

    // visible to the person who made it (and operators), not to another approver
    const listed = await t.alice.sessions();
    expect(listed.ok && listed.value.map((s) => ({ grantId: s.grantId, principal: s.principal, tool: s.tool, covers: s.covers }))).toEqual([
      { grantId: first.callId, principal: "planner", tool: "notes.write", covers: 'folder = "ops"' },
    ]);
    const bobs = await t.bob.sessions();
    expect(bobs.ok && bobs.value).toEqual([]);
    const olga = await t.w.approver("olga");
    const olgas = await olga.sessions();
    expect(olgas.ok && olgas.value.map((s) => s.grantId)).toContain(first.callId);

    // a request the agent stores under the same call id in a domain that sorts first does not hide the grant
    const agentBus = await t.w.agentBus("planner");
    agentBus.nc.publish(`warden.call.0.${first.callId}.ToolCallRequested.planner`, new TextEncoder().encode("{}"));
    await agentBus.nc.flush();
    await eventually(async () => {
      const info = await t.w.bus.jsm.streams.info(STREAM_CALLS, { subjects_filter: `warden.call.*.${first.callId}.ToolCallRequested.*` });
      expect(Object.keys(info.state.subjects ?? {}).sort()).toEqual([`warden.call.0.${first.callId}.ToolCallRequested.planner`, `warden.call.notes.${first.callId}.ToolCallRequested.planner`]);
    });
    // only its maker or an operator may revoke it
    expect(await t.bob.revokeSession(first.callId)).toMatchObject({ ok: false, refusal: "NOT_AUTHORISED" });
    expect(await t.alice.revokeSession(first.callId, "done with ops")).toMatchObject({ ok: true, by: "alice" });
    expect(await t.alice.revokeSession(first.callId)).toMatchObject({ ok: true, by: "alice" });
    expect(await t.alice.revokeSession(outside.callId)).toMatchObject({ ok: false, refusal: "NOT_FOUND" });
    const after = await t.alice.sessions();
    expect(after.ok && after.value).toEqual([]);
    const revoke = (await callEvents(t.w.bus, first.callId)).find((e) => e.type === "SessionGrantRevoked");
    expect(revoke?.type === "SessionGrantRevoked" && revoke.data).toEqual({ approvalId: card.approvalId, by: "alice", as: "approver", reason: "done with ops" });

    const afterRevoke = await write("ops", 5);
    expect(afterRevoke.status).toBe("awaiting_approval");
    await cardOf(afterRevoke.callId);
    expect(runs).toHaveLength(2);
    await executor.stop();
  });

  it("refuses GRANT_REVOKED a call its session grant granted while the executor was down, once the grant is revoked", async () => {
    const up = await startNotes();
    const first = await write("ops-b", 1);
    const card = await cardOf(first.callId);
    expect(await t.alice.approve(card.approvalId, card.argsHash, { session: { ttlSeconds: 600, args: { folder: { prefix: "ops" } } } })).toMatchObject({ ok: true });
    expect(await settled(first)).toMatchObject({ ok: true });
    await up.stop();

    const waiting = await write("ops-b", 2);
    await eventually(async () => expect((await grantOf(waiting.callId))?.data.bySession?.grantId).toBe(first.callId));
    expect(await isPending(waiting.callId)).toBe(false);
    expect(await t.alice.revokeSession(first.callId)).toMatchObject({ ok: true });

    await startNotes();
    expect(await settled(waiting)).toMatchObject({ ok: false, error: { code: "GRANT_REVOKED", message: expect.stringMatching(/revoked by alice at /) } });
    await eventually(async () => {
      const info = await t.w.bus.jsm.consumers.info(STREAM_CALLS, consumerName("executor-granted", "notes"));
      expect(info.num_pending + info.num_ack_pending).toBe(0);
    });
    expect(eventTypes(await callEvents(t.w.bus, waiting.callId))).not.toContain("ToolCallStarted");
    expect(runs.filter((r) => r.folder === "ops-b")).toEqual([{ folder: "ops-b", n: 1 }]);
  });

  it("refuses a grant for the session where the policy does not allow one, and leaves the approval to decide", async () => {
    const refusedFor = async (callId: string, session: { ttlSeconds: number; args?: Record<string, JsonValue> }, message: RegExp) => {
      const card = await cardOf(callId);
      const r = await t.alice.approve(card.approvalId, card.argsHash, { session: session as never });
      expect(r).toMatchObject({ ok: false, refusal: "SESSION_NOT_ALLOWED", message: expect.stringMatching(message) });
      expect(await isPending(callId)).toBe(true);
    };
    // a send: writes only, by this document
    const send = await t.planner.call("customer.message", { customerId: "C-s", text: "hi" }, { mode: "plan" });
    await refusedFor(send.callId, { ttlSeconds: 60 }, /for write calls only, not send/);
    const w1 = await write("x", 1);
    await refusedFor(w1.callId, { ttlSeconds: 3600 }, /at most 1800 s/);
    await refusedFor(w1.callId, { ttlSeconds: 60, args: { folder: { equals: "y" } } }, /do not hold for the args granted now: folder is not "y"/);
    // the approval is still open to decide as usual
    const card = await cardOf(w1.callId);
    expect(await t.alice.deny(card.approvalId, card.argsHash, "no")).toMatchObject({ ok: true });
  });
});
