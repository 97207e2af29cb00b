import { type OwnCall } from "@warden/contracts/events";
import { fail, ok } from "@warden/contracts/errors";
import { type DecidedApproval, type PendingApproval } from "@warden/contracts/approval";
import type { CallTrace } from "@warden/projections";
import type { ApprovalWatch, ApproverClient, DecisionOutcome } from "@warden/sdk";
import type { OwnCallsReader } from "../src/own-calls-client.js";

// Stand-ins for the approver client and the own-calls reader in tests of the page and its server
// (no NATS involved: the whole-Warden tests are test/e2e/inbox-browser.test.ts and inbox-calls.test.ts).

/** An approver client that answers from `cards` and decides by removing from it, recording each decision. */
export function standInClient(cards: PendingApproval[], decided: DecidedApproval[] = []): ApproverClient & { decisions: string[] } {
  const decisions: string[] = [];
  const decide = (id: string, hash: string, decision: "grant" | "deny"): DecisionOutcome => {
    const c = cards.find((x) => x.approvalId === id);
    if (c === undefined) return { ok: false, refusal: "UNKNOWN_APPROVAL", message: `no approval ${id}` };
    if (c.argsHash !== hash) return { ok: false, refusal: "ARGS_HASH_MISMATCH", message: "not the args shown" };
    cards.splice(cards.indexOf(c), 1);
    decisions.push(`${decision} ${id}`);
    return { ok: true, approvalId: id, callId: c.callId, decision };
  };
  return {
    approver: "alice",
    decisions,
    pending: async () => ok([...cards]),
    watch(): ApprovalWatch {
      let end: () => void = () => undefined;
      const ended = new Promise<void>((resolve) => (end = resolve));
      return {
        async *[Symbol.asyncIterator]() {
          await ended;
        },
        stop: () => end(),
        error: undefined,
      };
    },
    approve: async (id, hash) => decide(id, hash, "grant"),
    deny: async (id, hash) => decide(id, hash, "deny"),
    sessions: async () => ok([]),
    decided: async () => ok([...decided]),
    revokeSession: async (grantId) => ({ ok: false, refusal: "NOT_FOUND", message: `no session grant ${grantId}` }),
  };
}

/** A stand-in for the own-calls reader: lists `calls`, traces what `traces` holds, counts the reads. */
export function standInCalls(calls: OwnCall[], traces: Record<string, CallTrace>, person = "alice", decided: Record<string, CallTrace> = {}): OwnCallsReader & { reads: number } {
  const reader = {
    person,
    reads: 0,
    list: async (limit?: number) => {
      reader.reads++;
      return ok({ calls: calls.slice(0, limit ?? 50), total: calls.length });
    },
    trace: async (callId: string) => {
      const t = traces[callId];
      return t === undefined ? fail<CallTrace>("NOT_FOUND", `no call ${callId} of ${person}`) : ok(t);
    },
    traceDecided: async (callId: string) => {
      const t = decided[callId];
      return t === undefined ? fail<CallTrace>("NOT_FOUND", `no call ${callId} that ${person} decided or may decide`) : ok(t);
    },
  };
  return reader;
}

/** A row of the list as the registry answers it. */
export const ownCall = (over: Partial<OwnCall> & Pick<OwnCall, "callId" | "seq">): OwnCall => ({
  domain: "kb",
  tool: "kb.search",
  principal: "alice",
  mode: "llm",
  requestedAt: new Date().toISOString(),
  status: "succeeded",
  durationMs: 42,
  argsPreview: '{"query":"refund policy"}',
  ...over,
});
