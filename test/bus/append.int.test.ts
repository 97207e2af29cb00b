import { describe, expect, it } from "vitest";
import { eventHash, newId, type ToolCallRequested, type WardenEvent } from "@warden/contracts/events";
import { useTestNats } from "@warden/testing";
import { appendEvent, readCallHistory, readEvent } from "@warden/bus";
import { handMadeRequest } from "../support/hand-made-request.js";

function request(callId: string, principal = "alice"): ToolCallRequested {
  return handMadeRequest({ callId, tool: "kb.search", principal, mode: "human", runId: "run1", data: { args: { query: "x" } } });
}

describe("appendEvent", () => {
  const t = useTestNats();

  it("writes an event once and reports a second write as already written, as a value", async () => {
    const callId = newId();
    const first = request(callId);
    expect((await appendEvent(t.bus, first)).status).toBe("written");
    const again = await appendEvent(t.bus, { ...first, eventId: newId() });
    expect(again.status).toBe("already_written");
    if (again.status === "already_written") {
      expect(again.ours).toBe(false);
      expect(again.existing?.eventId).toBe(first.eventId);
    }
    const retry = await appendEvent(t.bus, first);
    expect(retry).toMatchObject({ status: "already_written", ours: true });
  });

  it("treats a redelivered stage's new event with the same cause as ours", async () => {
    const callId = newId();
    const base: WardenEvent = {
      ...request(callId),
      type: "ToolCallRejected",
      causationId: "cause1",
      causeHash: `sha256:${"c".repeat(64)}`,
      data: { stage: "registry", error: { code: "UNKNOWN_TOOL", message: "no", retryable: false } },
    };
    expect((await appendEvent(t.bus, base)).status).toBe("written");
    expect(await appendEvent(t.bus, { ...base, eventId: newId() })).toMatchObject({ status: "already_written", ours: true });
  });

  it("reads a request back whatever its principal token", async () => {
    const callId = newId();
    const ev = request(callId, "bob");
    await appendEvent(t.bus, ev);
    const back = await readEvent(t.bus, "kb", callId, "ToolCallRequested");
    expect(back?.eventId).toBe(ev.eventId);
    expect(await readEvent(t.bus, "kb", newId(), "ToolCallRequested")).toBeUndefined();
  });
});

describe("readCallHistory", () => {
  const t = useTestNats();

  it("returns one call's events in stream order and nothing of other calls", async () => {
    const callId = newId();
    const req = request(callId);
    await appendEvent(t.bus, request(newId()));
    await appendEvent(t.bus, req);
    await appendEvent(t.bus, {
      ...req,
      eventId: newId(),
      type: "ToolCallRejected",
      causationId: req.eventId,
      causeHash: eventHash(req),
      data: { stage: "registry", error: { code: "UNKNOWN_TOOL", message: "no", retryable: false } },
    });
    const history = await readCallHistory(t.bus, callId);
    expect(history.map((h) => h.event?.type)).toEqual(["ToolCallRequested", "ToolCallRejected"]);
    expect(await readCallHistory(t.bus, "a.b")).toEqual([]);
  });
});
