import { describe, expect, it } from "vitest";
import type { ToolCallRequested, WardenEvent } from "@warden/contracts/events";
import { applyCallEvent, type CallModel } from "@warden/projections";
import { syntheticCall } from "@warden/testing";
import { newestFirst, OWN_CALL_PREVIEW_CHARS, ownCallRow, ownTrace } from "./own-calls.js";

const entries = (events: readonly WardenEvent[], from = 1) => events.map((event, i) => ({ seq: from + i, event }));
const fold = (events: readonly WardenEvent[]): CallModel => events.reduce<CallModel | undefined>((m, e, i) => applyCallEvent(m, e, i + 1), undefined)!;
const requestOf = (events: readonly WardenEvent[]) => events[0] as ToolCallRequested;

describe("a person's own calls listed", () => {
  it("makes a row from the projected model: state, duration from the request to the last event, approver", () => {
    const events = syntheticCall({ callId: "c1", outcome: "approved", principal: "alice", approver: "bob" });
    const row = ownCallRow("alice", { seq: 7, request: requestOf(events), model: fold(events) });
    expect(row).toMatchObject({ callId: "c1", domain: "kb", tool: "kb.search", principal: "alice", mode: "plan", seq: 7, status: "succeeded", approver: "bob" });
    // the synthetic call writes an event every 3 ms
    expect(row?.durationMs).toBe(3 * (events.length - 1));
    expect(row?.error).toBeUndefined();
  });

  it("names why a call was refused or failed", () => {
    const denied = syntheticCall({ callId: "c2", outcome: "policy_denied", principal: "alice" });
    expect(ownCallRow("alice", { seq: 1, request: requestOf(denied), model: fold(denied) })).toMatchObject({ status: "rejected", error: { code: "POLICY_DENIED" } });
    const failed = syntheticCall({ callId: "c3", outcome: "failed", principal: "alice" });
    expect(ownCallRow("alice", { seq: 1, request: requestOf(failed), model: fold(failed) })?.error?.code).toEqual(expect.any(String));
  });

  it("lists a request the projector has not folded yet as requested, its args cut", () => {
    const long = "x".repeat(OWN_CALL_PREVIEW_CHARS * 2);
    const events = syntheticCall({ callId: "c4", outcome: "succeeded", principal: "alice", args: { text: long } });
    const row = ownCallRow("alice", { seq: 3, request: requestOf(events) });
    expect(row).toMatchObject({ callId: "c4", status: "requested", durationMs: 0 });
    expect(row?.argsPreview.length).toBe(OWN_CALL_PREVIEW_CHARS);
    expect(row?.argsPreview.endsWith("…")).toBe(true);
  });

  it("leaves out a call whose model is another principal's: the person's request under that id was not answered as theirs", () => {
    const theirs = syntheticCall({ callId: "c5", outcome: "succeeded", principal: "mallory" });
    const mine = syntheticCall({ callId: "c5", outcome: "succeeded", principal: "alice" });
    expect(ownCallRow("alice", { seq: 9, request: requestOf(mine), model: fold(theirs) })).toBeUndefined();
    // and a request not of the asker is never a row of theirs
    expect(ownCallRow("alice", { seq: 9, request: requestOf(theirs) })).toBeUndefined();
  });

  it("orders rows newest first by stream sequence, not by the callers' clocks, and keeps the limit", () => {
    const rows = [
      { seq: 4, requestedAt: "2030-01-01T00:00:09.000Z" },
      { seq: 12, requestedAt: "2020-01-01T00:00:00.000Z" },
      { seq: 8, requestedAt: "2030-01-01T00:00:01.000Z" },
    ];
    expect(newestFirst(rows, 2).map((r) => r.seq)).toEqual([12, 8]);
    expect(newestFirst(rows, 10).map((r) => r.seq)).toEqual([12, 8, 4]);
  });
});

describe("a person's own call traced", () => {
  it("gives every event of the call in stream order once the registry answered the person's request", () => {
    const events = syntheticCall({ callId: "t1", outcome: "approved", principal: "alice" });
    const [request, ...rest] = entries(events);
    const t = ownTrace({ seq: request!.seq, event: request!.event as ToolCallRequested }, [...rest].reverse());
    expect(t.ok && t.entries.map((e) => e.event.type)).toEqual(events.map((e) => e.type));
    expect(t.ok && t.entries.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
  });

  it("shows only the request before the registry answered it", () => {
    const events = syntheticCall({ callId: "t2", outcome: "succeeded", principal: "alice" });
    const t = ownTrace({ seq: 1, event: requestOf(events) }, []);
    expect(t).toEqual({ ok: true, entries: [{ seq: 1, event: events[0] }] });
  });

  it("refuses a call whose answered request is another principal's, and never shows that request", () => {
    const theirs = syntheticCall({ callId: "t3", outcome: "succeeded", principal: "mallory" });
    const mine = syntheticCall({ callId: "t3", outcome: "succeeded", principal: "alice" });
    const mineRequest = { ...requestOf(mine), eventId: "t3-alice-request" };
    expect(ownTrace({ seq: 40, event: mineRequest }, entries(theirs))).toEqual({ ok: false, reason: "not_owner" });
    // the person's own answered call: mallory's later request under the id is left out
    const ownCall = ownTrace({ seq: 1, event: requestOf(mine) }, [...entries(mine.slice(1), 2), { seq: 50, event: requestOf(theirs) }]);
    expect(ownCall.ok && ownCall.entries.filter((e) => e.event.type === "ToolCallRequested").map((e) => e.event.principal)).toEqual(["alice"]);
  });

  it("removes the approval card's dry run, shown only to the people deciding", () => {
    const events = syntheticCall({ callId: "t4", outcome: "approved", principal: "alice" });
    const withPreview = events.map((e): WardenEvent => (e.type === "ApprovalRequested" ? { ...e, data: { ...e.data, preview: { data: { balance: 1200 }, executorId: "kb-1" } } } : e));
    const [request, ...rest] = entries(withPreview);
    const t = ownTrace({ seq: 1, event: request!.event as ToolCallRequested }, rest);
    const card = t.ok ? t.entries.find((e) => e.event.type === "ApprovalRequested")?.event : undefined;
    expect(card?.type === "ApprovalRequested" && card.data.preview).toBeUndefined();
    expect(card?.type === "ApprovalRequested" && card.data.approvalId).toEqual(expect.any(String));
  });
});
