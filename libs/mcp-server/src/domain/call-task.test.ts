import { describe, expect, it } from "vitest";
import type { WardenEvent } from "@warden/contracts/events";
import { syntheticCall } from "@warden/testing";
import { callHandleUri, callIdOfHandle, callTaskOf, endedResult } from "./call-task.js";

const opts = { pollIntervalMs: 500 };

/** The events of a call up to and with the first of `type`: the call as it stood then. */
function upTo(events: WardenEvent[], type: WardenEvent["type"]): WardenEvent[] {
  return events.slice(0, events.findIndex((e) => e.type === type) + 1);
}

describe("a Warden call as an MCP task", () => {
  it("is input_required from its approval request, with the card's title and args as the message", () => {
    const call = syntheticCall({ callId: "c1", outcome: "approved", tool: "customer.message", args: { customerId: "C-1", text: "hi" } });
    const task = callTaskOf(upTo(call, "ApprovalRequested"), opts);
    expect(task).toMatchObject({ taskId: "c1", status: "input_required", ttl: null, pollInterval: 500, createdAt: call[0]!.ts });
    expect(task?.statusMessage).toMatch(/^Waiting for a person to approve: .*C-1/);
  });

  it("is completed once the call succeeded, and its result is the call's", () => {
    const call = syntheticCall({ callId: "c2", outcome: "approved" });
    expect(callTaskOf(call, opts)).toMatchObject({ status: "completed", lastUpdatedAt: call[call.length - 1]!.ts });
    expect(endedResult(call)).toMatchObject({ ok: true, status: "succeeded" });
  });

  it("fails with the reason of a denial, an expiry, a refusal or the tool's error", () => {
    expect(callTaskOf(syntheticCall({ callId: "c3", outcome: "approval_denied" }), opts)).toMatchObject({ status: "failed", statusMessage: "APPROVAL_DENIED: denied by alice: no" });
    expect(callTaskOf(syntheticCall({ callId: "c4", outcome: "expired" }), opts)).toMatchObject({ status: "failed", statusMessage: expect.stringMatching(/^APPROVAL_EXPIRED: /) });
    expect(callTaskOf(syntheticCall({ callId: "c5", outcome: "policy_denied" }), opts)).toMatchObject({ status: "failed", statusMessage: expect.stringMatching(/^POLICY_DENIED: /) });
    expect(callTaskOf(syntheticCall({ callId: "c6", outcome: "failed" }), opts)).toMatchObject({ status: "failed" });
  });

  it("is working before anything settled it, and no task without a request", () => {
    const call = syntheticCall({ callId: "c7", outcome: "succeeded" });
    expect(callTaskOf(call.slice(0, 1), opts)).toMatchObject({ status: "working" });
    expect(callTaskOf([], opts)).toBeUndefined();
  });

  it("names a call's handle resource, and reads the call id back only from a handle", () => {
    expect(callHandleUri("k1_A-b")).toBe("warden://calls/k1_A-b");
    expect(callIdOfHandle("warden://calls/k1_A-b")).toBe("k1_A-b");
    expect(callIdOfHandle("warden://artifacts/a1")).toBeUndefined();
    expect(callIdOfHandle("warden://calls/a/b")).toBeUndefined();
    expect(callIdOfHandle("warden://calls/%E0%A4%A")).toBeUndefined();
  });
});
