import { describe, expect, it } from "vitest";
import type { OwnCall } from "@warden/contracts/events";
import { callRows } from "./call-rows.js";

const call = (over: Partial<OwnCall> & Pick<OwnCall, "callId" | "seq">): OwnCall => ({
  domain: "kb",
  tool: "kb.search",
  principal: "alice",
  mode: "llm",
  requestedAt: "2030-01-01T00:00:00.000Z",
  status: "succeeded",
  durationMs: 42,
  argsPreview: '{"q":"x"}',
  ...over,
});

describe("the Calls page's rows", () => {
  it("puts the newest request first by stream sequence, whatever the callers' clocks say", () => {
    const rows = callRows([
      call({ callId: "a", seq: 3, requestedAt: "2030-01-01T00:00:09.000Z" }),
      call({ callId: "b", seq: 11, requestedAt: "2020-01-01T00:00:00.000Z" }),
      call({ callId: "c", seq: 7 }),
    ]);
    expect(rows.map((r) => r.callId)).toEqual(["b", "c", "a"]);
  });

  it("says each state in words with its tone, and whether the call is still open", () => {
    // a call waiting for a person keeps counting: since its request, not to its last event
    const now = Date.parse("2030-01-01T00:02:05.000Z");
    const rows = callRows([
      call({ callId: "ok", seq: 5, status: "succeeded" }),
      call({ callId: "wait", seq: 4, status: "awaiting_approval", durationMs: 22 }),
      call({ callId: "no", seq: 3, status: "rejected", error: { code: "POLICY_DENIED", message: "not in plan mode" } }),
      call({ callId: "new", seq: 2, status: "some_future_state", requestedAt: "not a time", durationMs: 2_500 }),
    ], now);
    expect(rows.map((r) => [r.callId, r.state, r.tone, r.open])).toEqual([
      ["ok", "succeeded", "ok", false],
      ["wait", "waiting for approval", "wait", true],
      ["no", "refused", "bad", false],
      ["new", "some future state", "run", true],
    ]);
    expect(rows[1]!.duration).toBe("2 min 05 s so far");
    expect(rows[3]!.duration).toBe("2.5 s so far");
    expect(rows[0]!.duration).toBe("42 ms");
    expect(rows[2]!.error).toBe("POLICY_DENIED: not in plan mode");
    expect(rows[0]!.error).toBeNull();
    expect(rows[0]!.approver).toBeNull();
  });

  it("keeps what the caller wrote as it is (the page sets it as text)", () => {
    const [row] = callRows([call({ callId: "x", seq: 1, argsPreview: '{"q":"<script>alert(1)</script>"}' })]);
    expect(row!.argsPreview).toBe('{"q":"<script>alert(1)</script>"}');
  });
});
