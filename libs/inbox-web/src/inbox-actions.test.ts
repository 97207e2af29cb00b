import { ok } from "@warden/contracts/errors";
import { type JsonValue } from "@warden/contracts/json";
import type { ApproveOptions, CancelOutcome, DecisionOutcome } from "@warden/sdk";
import { describe, expect, it } from "vitest";
import { approverActions } from "./inbox-actions.js";

/** Records how the actions call the approver client. */
function recordingClient() {
  const calls: { method: "approve" | "deny" | "revokeSession"; args: unknown[] }[] = [];
  const granted = (id: string): DecisionOutcome => ({ ok: true, approvalId: id, callId: `call-${id}`, decision: "grant" });
  return {
    calls,
    client: {
      approve: async (id: string, hash: string, options?: string | ApproveOptions) => (calls.push({ method: "approve", args: [id, hash, options] }), granted(id)),
      deny: async (id: string, hash: string, reason: string): Promise<DecisionOutcome> => (
        calls.push({ method: "deny", args: [id, hash, reason] }), { ok: true, approvalId: id, callId: `call-${id}`, decision: "deny" }
      ),
      revokeSession: async (grantId: string, reason?: string): Promise<CancelOutcome> => (
        calls.push({ method: "revokeSession", args: [grantId, reason] }), { ok: true, callId: grantId, domain: "notes", by: "alice", at: "2030-01-01T00:00:00.000Z" }
      ),
    },
  };
}

const hash = `sha256:${"b".repeat(64)}`;

describe("the inbox's actions", () => {
  it("advertises approve, deny, edit-and-approve and approve-for-session, each with its own key", () => {
    const { specs } = approverActions(recordingClient().client);
    expect(specs.map((s) => [s.kind, s.key, s.asks])).toEqual([
      ["approve", "a", "optional-reason"],
      ["deny", "d", "reason"],
      ["approve-edited", "e", "args"],
      ["approve-session", "s", "session"],
    ]);
  });

  it("grants for the session through approve(id, argsHash, { session }) and revokes a session grant by its id", async () => {
    const r = recordingClient();
    const actions = approverActions(r.client);
    const session = { ttlSeconds: 3600, args: { customerId: { equals: "C-1" } } };
    expect(await actions.run({ kind: "approve-session", approvalId: "ap1", argsHash: hash, session })).toEqual(
      ok({ kind: "approve-session", approvalId: "ap1", callId: "call-ap1", decision: "grant", reason: null }),
    );
    expect(await actions.run({ kind: "revoke-session", grantId: "call-ap1" })).toEqual(ok({ kind: "revoke-session", callId: "call-ap1", decision: "revoke-session", reason: null }));
    expect(r.calls).toEqual([
      { method: "approve", args: ["ap1", hash, { session }] },
      { method: "revokeSession", args: ["call-ap1", undefined] },
    ]);
    // a session with constraints a person could not have meant is refused before the client is asked
    expect(await actions.run({ kind: "approve-session", approvalId: "ap1", argsHash: hash, session: { ttlSeconds: 0 } })).toMatchObject({ ok: false, error: { code: "INVALID_REQUEST" } });
    expect(await actions.run({ kind: "approve-session", approvalId: "ap1", argsHash: hash, session: { ttlSeconds: 60, args: { x: {} } } })).toMatchObject({ ok: false, error: { code: "INVALID_REQUEST" } });
    expect(r.calls).toHaveLength(2);
  });

  it("grants edited args through approve(id, argsHash, { args, reason }), echoing the hash of the args shown", async () => {
    const r = recordingClient();
    const args: JsonValue = { customerId: "C-1", text: "edited" };
    const done = await approverActions(r.client).run({ kind: "approve-edited", approvalId: "ap1", argsHash: hash, args, reason: "fixed the amount" });
    expect(done).toEqual(ok({ kind: "approve-edited", approvalId: "ap1", callId: "call-ap1", decision: "grant", reason: "fixed the amount" }));
    expect(r.calls).toEqual([{ method: "approve", args: ["ap1", hash, { args, reason: "fixed the amount" }] }]);
  });

  it("refuses an edit without args, and a body that is no action, as INVALID_REQUEST without calling the client", async () => {
    const r = recordingClient();
    const actions = approverActions(r.client);
    expect(await actions.run({ kind: "approve-edited", approvalId: "ap1", argsHash: hash })).toMatchObject({ ok: false, error: { code: "INVALID_REQUEST" } });
    expect(await actions.run({ kind: "approve-for-ever", approvalId: "ap1", argsHash: hash })).toMatchObject({ ok: false, error: { code: "INVALID_REQUEST" } });
    expect(r.calls).toEqual([]);
  });

  it("reports the approver's refusal of edited args (INVALID_ARGS) as DECISION_REFUSED with the refusal kept", async () => {
    const actions = approverActions({
      approve: async () => ({ ok: false, refusal: "INVALID_ARGS", message: "args/text: must be a string" }) as DecisionOutcome,
      deny: async () => ({ ok: false, refusal: "UNAVAILABLE", message: "no approver" }),
      revokeSession: async () => ({ ok: false, refusal: "UNAVAILABLE", message: "no approver" }),
    });
    const done = await actions.run({ kind: "approve-edited", approvalId: "ap1", argsHash: hash, args: { text: 1 } });
    expect(done).toMatchObject({ ok: false, error: { code: "DECISION_REFUSED", message: "args/text: must be a string", details: { refusal: "INVALID_ARGS" } } });
  });
});
