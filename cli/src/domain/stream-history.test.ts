import { describe, expect, it } from "vitest";
import { type WardenEvent } from "@warden/contracts/events";
import { PolicyDocumentSchema } from "@warden/contracts/policy";
import { syntheticCall, type SyntheticOutcome } from "@warden/testing";
import { historyFromCalls, historySince } from "./stream-history.js";

const at = new Date("2030-01-01T10:00:00.000Z");
const call = (callId: string, outcome: SyntheticOutcome, o: { parentCallId?: string; tool?: string } = {}) => ({
  callId,
  events: syntheticCall({ callId, outcome, at, tool: o.tool ?? "shop.fraud_check", principal: "cashier", runId: "r1", args: { customerId: "K-7" }, ...o }),
});

describe("historyFromCalls", () => {
  it("keeps the admitted calls, from their decision's time, each ending as the policy's history index settles it", () => {
    const pending = call("p1", "succeeded");
    const calls = [
      call("ok1", "succeeded"),
      call("bad1", "failed"),
      call("gone1", "crashed"),
      call("denied1", "policy_denied"),
      call("refused1", "approval_denied"),
      call("late1", "expired"),
      { callId: "p1", events: pending.events.slice(0, pending.events.findIndex((e) => e.type === "ToolPolicyChecked") + 1) },
    ];
    const records = historyFromCalls(calls);
    const outcomes = Object.fromEntries(records.map((r) => [r.callId, r.outcome]));
    // a deny never entered the index
    expect(outcomes).toEqual({ ok1: "ok", bad1: "failed", gone1: "unknown", refused1: "failed", late1: "failed", p1: "pending" });
    const decided = calls[0]!.events.find((e) => e.type === "ToolPolicyChecked")!;
    const finished = calls[0]!.events.find((e) => e.type === "ToolCallFinished")!;
    expect(records.find((r) => r.callId === "ok1")).toEqual({ callId: "ok1", tool: "shop.fraud_check", principal: "cashier", runId: "r1", treeRoot: "ok1", args: { customerId: "K-7" }, at: decided.ts, outcome: "ok", endedAt: finished.ts });
    // a call still in flight has no ending time
    expect(records.find((r) => r.callId === "p1")).not.toHaveProperty("endedAt");
  });

  it("releases a call cancelled before it started: it never ran", () => {
    const asked = call("x1", "succeeded");
    const decided = asked.events.slice(0, asked.events.findIndex((e) => e.type === "ToolPolicyChecked") + 1);
    const checked = decided.at(-1)!;
    const cancel = { ...checked, type: "ToolCallCancelled", eventId: "cancel-x1", ts: "2030-01-01T10:05:00.000Z", data: { by: "cashier", as: "requester", reason: "asked twice" } } as unknown as WardenEvent;
    expect(historyFromCalls([{ callId: "x1", events: [...decided, cancel] }])).toMatchObject([{ callId: "x1", outcome: "failed", endedAt: "2030-01-01T10:05:00.000Z" }]);
  });

  it("names each call's tree by the top of its parentCallId chain among the calls read", () => {
    const records = historyFromCalls([call("top", "succeeded"), call("mid", "succeeded", { parentCallId: "top" }), call("leaf", "succeeded", { parentCallId: "mid" }), call("orphan", "succeeded", { parentCallId: "unread" })]);
    expect(Object.fromEntries(records.map((r) => [r.callId, r.treeRoot]))).toEqual({ top: "top", mid: "top", leaf: "top", orphan: "unread" });
  });
});

describe("historySince", () => {
  it("reads back the longest window of the document's history rules, and nothing without one", () => {
    const doc = PolicyDocumentSchema.parse({
      version: "h",
      rules: [
        { id: "a", match: { tool: "x.y" }, when: { history: { scope: "run", within: "30m", calls: { tool: "x.z" }, exists: true } }, effect: "deny", reason: "a" },
        { id: "b", match: { tool: "x.y" }, when: { history: { scope: "run", within: "2h", calls: { tool: "x.z" }, count: { max: 3 } } }, effect: "deny", reason: "b" },
      ],
    });
    expect(historySince(doc, at)?.toISOString()).toBe("2030-01-01T08:00:00.000Z");
    expect(historySince(PolicyDocumentSchema.parse({ version: "none" }), at)).toBeUndefined();
  });
});
