import { describe, expect, it } from "vitest";
import { idempotentCallId, mayUseCallId, undoCallIdOf } from "./derived-call-ids.js";
import { newId } from "./ids.js";
import { isSafeToken } from "./tokens.js";

describe("derived call ids", () => {
  it("gives one principal's key the same safe call id every time, and another key or principal another", () => {
    const id = idempotentCallId("support-bot", "refund-42 step 3");
    expect(id).toBe(idempotentCallId("support-bot", "refund-42 step 3"));
    expect(isSafeToken(id)).toBe(true);
    expect(idempotentCallId("support-bot", "k2")).not.toBe(idempotentCallId("support-bot", "k1"));
    expect(idempotentCallId("billing-bot", "k1")).not.toBe(idempotentCallId("support-bot", "k1"));
    // the pair is hashed as a pair: ("a", "b-c") is not ("a-b", "c")
    expect(idempotentCallId("a", "b-c")).not.toBe(idempotentCallId("a-b", "c"));
  });

  it("gives one undo per call and requester: another domain or requester of the same id is another undo", () => {
    const u = undoCallIdOf("alice", "ticket", "c1");
    expect(isSafeToken(u)).toBe(true);
    expect(undoCallIdOf("alice", "ticket", "c1")).toBe(u);
    expect(undoCallIdOf("alice", "billing", "c1")).not.toBe(u);
    expect(undoCallIdOf("mallory", "ticket", "c1")).not.toBe(u);
  });

  it("lets only the owner use a derived id, and anyone a random or hand-made one", () => {
    for (const id of [idempotentCallId("alice", "k"), undoCallIdOf("alice", "ticket", "c1")]) {
      expect(mayUseCallId("alice", id)).toBe(true);
      expect(mayUseCallId("mallory", id)).toBe(false);
    }
    expect(mayUseCallId("mallory", newId())).toBe(true);
    expect(mayUseCallId("mallory", "c1-undo")).toBe(true);
  });
});
