import { describe, expect, it } from "vitest";
import { isSafeToken } from "@warden/contracts";
import { idempotentCallId } from "./idempotent-call-id.js";

describe("idempotentCallId", () => {
  it("gives one principal's key the same safe call id every time", () => {
    const id = idempotentCallId("support-bot", "refund-42 step 3");
    expect(id).toBe(idempotentCallId("support-bot", "refund-42 step 3"));
    expect(isSafeToken(id)).toBe(true);
  });

  it("gives another key or another principal another call id", () => {
    const id = idempotentCallId("support-bot", "k1");
    expect(idempotentCallId("support-bot", "k2")).not.toBe(id);
    expect(idempotentCallId("billing-bot", "k1")).not.toBe(id);
    // the pair is hashed as a pair: ("a", "b-c") is not ("a-b", "c")
    expect(idempotentCallId("a", "b-c")).not.toBe(idempotentCallId("a-b", "c"));
  });
});
