import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appendEvent, type Bus } from "@warden/bus";
import { newId, type WardenEvent } from "@warden/contracts";
import { startTestNats, type TestNats } from "../../test/support/nats.js";
import { readCallTrace } from "./trace-reader.js";

function events(callId: string, domain: string): WardenEvent[] {
  const base = { v: 1 as const, callId, domain, tool: `${domain}.search`, principal: "bot", mode: "llm" as const, correlationId: "run1" };
  const requested: WardenEvent = {
    ...base,
    type: "ToolCallRequested",
    eventId: newId(),
    ts: new Date().toISOString(),
    causationId: null,
    data: { args: { query: "x" }, scope: null, flags: {} },
  };
  const rejected: WardenEvent = {
    ...base,
    type: "ToolCallRejected",
    eventId: newId(),
    ts: new Date().toISOString(),
    causationId: requested.eventId,
    data: { stage: "registry", error: { code: "UNKNOWN_TOOL", message: "no such tool", retryable: false } },
  };
  return [requested, rejected];
}

describe("readCallTrace", () => {
  let nats: TestNats;
  let bus: Bus;
  beforeAll(async () => {
    nats = await startTestNats();
    bus = await nats.bus();
  });
  afterAll(async () => nats.stop());

  it("finds a call's domain from its id and reads its events in stream order", async () => {
    const callId = newId();
    const written = events(callId, "kb");
    for (const e of written) await appendEvent(bus, e);
    // another call in the same domain must not leak in
    for (const e of events(newId(), "kb")) await appendEvent(bus, e);
    const trace = await readCallTrace(bus, callId);
    expect(trace?.domain).toBe("kb");
    expect(trace?.events.map((e) => e.eventId)).toEqual(written.map((e) => e.eventId));
  });

  it("prefers the domain of the request when the id appears under another domain too", async () => {
    const callId = newId();
    const real = events(callId, "ticket");
    for (const e of real) await appendEvent(bus, e);
    await appendEvent(bus, events(callId, "zzz")[1]!);
    const trace = await readCallTrace(bus, callId);
    expect(trace?.domain).toBe("ticket");
    expect(trace?.events.map((e) => e.type)).toEqual(["ToolCallRequested", "ToolCallRejected"]);
  });

  it("returns undefined for a call id with no events", async () => {
    expect(await readCallTrace(bus, newId())).toBeUndefined();
  });
});
