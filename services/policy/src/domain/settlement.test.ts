import { describe, expect, it } from "vitest";
import { maySettle, settlementOf, type SettlingEvent } from "./settlement.js";

const of = (type: SettlingEvent["type"], data: object) => ({ type, data }) as unknown as SettlingEvent;

describe("how a result settles a call's ledger reservations", () => {
  it("spends the reservation of a call that ran or may have, and releases one that did not or failed", () => {
    expect(settlementOf(of("ToolCallFinished", { ok: true }))).toBe("spent");
    expect(settlementOf(of("ToolCallOutcomeUnknown", {}))).toBe("spent");
    expect(settlementOf(of("ToolCallFinished", { ok: false }))).toBe("released");
    expect(settlementOf(of("ToolCallRejected", { stage: "executor" }))).toBe("released");
    expect(settlementOf(of("ToolCallRejected", { stage: "approver" }))).toBe("released");
    expect(settlementOf(of("ApprovalDenied", {}))).toBe("released");
    expect(settlementOf(of("ApprovalExpired", {}))).toBe("released");
  });

  it("skips unread the refusals that come before any reservation: the registry's and the policy's own", () => {
    expect(maySettle({ type: "ToolCallRejected", data: { stage: "registry" } })).toBe(false);
    expect(maySettle({ type: "ToolCallRejected", data: { stage: "policy" } })).toBe(false);
    expect(maySettle({ type: "ToolCallRejected", data: { stage: "approver" } })).toBe(true);
    expect(maySettle({ type: "ApprovalDenied", data: {} })).toBe(true);
    expect(maySettle("not an object")).toBe(true);
  });
});
