import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appendEvent, silentLogger } from "@warden/bus";
import { newId, type WardenEvent } from "@warden/contracts/events";
import { startProjectorService, type ProjectorService } from "@warden/projector";
import { eventually, syntheticCall, useConnections, useTestNats } from "@warden/testing";
import { readCallEvents, readCallTrace } from "./trace-reader.js";

function rejected(callId: string, domain: string): WardenEvent[] {
  return syntheticCall({ callId, outcome: "rejected", tool: `${domain}.search` });
}

describe("reading a call's trace", () => {
  /** Its admin connection (`server.bus`) writes the crafted streams: no service role may write every event type. */
  const server = useTestNats();
  /** What reads the traces: an auditor's connection, which reads everything and writes nothing. */
  const readers = useConnections(server, { auditor: { kind: "auditor", name: "auditor" } });
  let projector: ProjectorService;
  beforeAll(async () => {
    projector = await startProjectorService({ bus: await server.nats.connectAs({ kind: "service", name: "projector", role: "projector" }), log: silentLogger() });
  });
  afterAll(async () => projector.stop());

  it("finds a call's domain from its id and reads its events in stream order, with their sequences", async () => {
    const callId = newId();
    const written = rejected(callId, "kb");
    for (const e of written) await appendEvent(server.bus, e);
    // another call in the same domain must not leak in
    for (const e of rejected(newId(), "kb")) await appendEvent(server.bus, e);
    const found = await readCallEvents(readers.auditor, callId);
    expect(found?.domain).toBe("kb");
    expect(found?.entries.map((e) => e.event.eventId)).toEqual(written.map((e) => e.eventId));
    expect(found!.entries[1]!.seq).toBeGreaterThan(found!.entries[0]!.seq);
  });

  it("prefers the domain of the request when the id appears under another domain too", async () => {
    const callId = newId();
    const real = rejected(callId, "ticket");
    for (const e of real) await appendEvent(server.bus, e);
    await appendEvent(server.bus, { ...rejected(callId, "zzz")[1]!, eventId: newId() });
    // once the projector has folded all three into the one model the id keys (regression: the
    // other domain's event then leaked into the timeline, depending on the projector's timing)
    const calls = await server.bus.kvm.open("warden_calls");
    await eventually(async () => expect((JSON.parse((await calls.get(callId))?.string() ?? "{}") as { events?: unknown[] }).events).toHaveLength(3));
    const found = await readCallEvents(readers.auditor, callId);
    expect(found?.domain).toBe("ticket");
    expect(found?.entries.map((e) => e.event.type)).toEqual(["ToolCallRequested", "ToolCallRejected"]);
  });

  it("shows a subagent's child calls under it, each with its own chain", async () => {
    const parent = newId();
    const [k1, k2] = [newId(), newId()];
    const at = new Date();
    const parentEvents = syntheticCall({ callId: parent, outcome: "succeeded", tool: "agents.triage", at });
    const started = parentEvents.findIndex((e) => e.type === "ToolCallStarted");
    const children = [
      ...syntheticCall({ callId: k1, outcome: "succeeded", parentCallId: parent, at }),
      ...syntheticCall({ callId: k2, outcome: "policy_denied", parentCallId: parent, at }),
    ];
    for (const e of [...parentEvents.slice(0, started + 1), ...children, ...parentEvents.slice(started + 1)]) await appendEvent(server.bus, e);
    const trace = await eventually(async () => {
      const t = await readCallTrace(readers.auditor, parent);
      if (t === undefined || !("steps" in t)) throw new Error("no readable trace yet");
      expect(t.children).toHaveLength(2);
      return t;
    });
    expect(trace.steps.map((s) => s.type)).toEqual(parentEvents.map((e) => e.type));
    expect(trace.children.map((c) => [c.callId, c.status, c.parentCallId])).toEqual([
      [k1, "succeeded", parent],
      [k2, "rejected", parent],
    ]);
    expect(trace.children[0]!.events.map((e) => e.type)).toEqual(["ToolCallRequested", "ToolArgsValidated", "ToolPolicyChecked", "ToolCallStarted", "ToolCallFinished"]);
  });

  it("returns undefined for a call id with no events", async () => {
    expect(await readCallTrace(readers.auditor, newId())).toBeUndefined();
  });
});
