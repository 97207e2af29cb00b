import { describe, expect, it } from "vitest";
import { appendEvent } from "@warden/bus";
import { newId, type WardenEvent } from "@warden/contracts/events";
import { STREAM_CALLS } from "@warden/contracts/subjects";
import { eventually, syntheticCall, useTestNats } from "@warden/testing";
import { readAuditCallEvents } from "./audit-reader.js";

describe("reading the calls of a range with their events", () => {
  const server = useTestNats();
  const append = async (events: readonly WardenEvent[]) => {
    for (const e of events) expect((await appendEvent(server.bus, e)).status).toBe("written");
  };
  it("adds the calls above a call of the range that delegated it, requested before the range, so its trace is whole", async () => {
    const [top, middle, child, other] = [newId(), newId(), newId(), newId()];
    await append(syntheticCall({ callId: top, outcome: "succeeded", tool: "agent.top" }));
    await append(syntheticCall({ callId: middle, outcome: "succeeded", tool: "agent.middle", parentCallId: top }));
    // the range starts after everything stored so far (the server's own clock)
    const since = new Date(Date.parse((await server.bus.jsm.streams.info(STREAM_CALLS)).state.last_ts) + 1);
    await eventually(async () => expect(Date.now()).toBeGreaterThan(since.getTime()));
    await append(syntheticCall({ callId: child, outcome: "succeeded", parentCallId: middle }));
    await append(syntheticCall({ callId: other, outcome: "policy_denied" }));

    const r = await readAuditCallEvents(server.bus, { since });
    expect(r.calls.map((c) => c.callId).sort()).toEqual([top, middle, child, other].sort());
    expect(r.ancestors).toBe(2);
    expect(r.calls.find((c) => c.callId === top)?.events.map((e) => e.type)).toEqual(["ToolCallRequested", "ToolArgsValidated", "ToolPolicyChecked", "ToolCallStarted", "ToolCallFinished"]);
    expect(r.calls.find((c) => c.callId === other)?.events.map((e) => e.type)).toEqual(["ToolCallRequested", "ToolArgsValidated", "ToolPolicyChecked", "ToolCallRejected"]);
  });
});
