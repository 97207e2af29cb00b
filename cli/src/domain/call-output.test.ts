import { describe, expect, it } from "vitest";
import { wardenError } from "@warden/contracts/errors";
import { callDocument, callExitCode, callText } from "./call-output.js";

describe("callDocument", () => {
  it("keeps the documented fields and drops what is absent", () => {
    expect(callDocument({ callId: "c1", ok: true, status: "succeeded", data: { hits: 1 } })).toEqual({
      callId: "c1",
      ok: true,
      status: "succeeded",
      data: { hits: 1 },
    });
  });

  it("reduces the error to code and message and keeps approval fields", () => {
    const doc = callDocument({
      callId: "c2",
      ok: false,
      status: "awaiting_approval",
      requiresConfirm: true,
      approvalId: "ap1",
      error: wardenError("CONFIRMATION_REQUIRED", "needs a person"),
    });
    expect(doc).toEqual({
      callId: "c2",
      ok: false,
      status: "awaiting_approval",
      requiresConfirm: true,
      approvalId: "ap1",
      error: { code: "CONFIRMATION_REQUIRED", message: "needs a person" },
    });
  });
});

describe("callText", () => {
  it("tells a person how to approve a call that waits", () => {
    const text = callText({ callId: "c2", ok: false, status: "awaiting_approval", approvalId: "ap1", error: wardenError("CONFIRMATION_REQUIRED", "x") });
    expect(text).toContain("awaiting_approval");
    expect(text).toContain("approve ap1 --as");
  });

  it("names who may decide, as the card does, instead of a placeholder", () => {
    const text = callText({ callId: "c2", ok: false, status: "awaiting_approval", approvalId: "ap1", deciders: ["alice", "dana"], error: wardenError("CONFIRMATION_REQUIRED", "x") });
    expect(text).toContain("may decide: alice, dana");
    expect(text).toContain("approve ap1 --as alice");
    expect(text).not.toContain("<approver>");
  });

  it("lists artifacts of a truncated output", () => {
    const text = callText({
      callId: "c3",
      ok: true,
      status: "succeeded",
      data: ["a"],
      truncated: true,
      artifacts: [{ id: "c3.output.json", sha256: "f".repeat(64), bytes: 10, contentType: "application/json" }],
    });
    expect(text).toContain("artifact c3.output.json  10 bytes");
  });
});

describe("callExitCode", () => {
  it("gives a call that waits for a person its own code, apart from a failure", () => {
    expect(callExitCode({ callId: "c", ok: true, status: "succeeded" })).toBe(0);
    expect(callExitCode({ callId: "c", ok: false, status: "awaiting_approval", approvalId: "ap" })).toBe(3);
    // --wait ran out while a person had not decided yet
    expect(callExitCode({ callId: "c", ok: false, status: "pending", approvalId: "ap" })).toBe(3);
    expect(callExitCode({ callId: "c", ok: false, status: "pending" })).toBe(1);
    expect(callExitCode({ callId: "c", ok: false, status: "denied" })).toBe(1);
    expect(callExitCode({ callId: "c", ok: false, status: "rejected" })).toBe(1);
  });
});
