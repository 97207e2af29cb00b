import { describe, expect, it } from "vitest";
import { nextCallEvent, stampNow } from "./envelope.js";
import { EVENT_SCHEMA_VERSION, WardenEventSchema, type ToolCallRequested } from "./events.js";
import { newId } from "./ids.js";

const request: ToolCallRequested = {
  v: EVENT_SCHEMA_VERSION,
  type: "ToolCallRequested",
  eventId: newId(),
  callId: newId(),
  domain: "kb",
  tool: "kb_search",
  principal: "alice",
  mode: "plan",
  ts: new Date(0).toISOString(),
  causationId: null,
  correlationId: "run-1",
  parentCallId: "parent-1",
  data: { args: { q: "x" }, scope: null, flags: {} },
};

describe("nextCallEvent", () => {
  it("repeats the call's fields, answers the event it is built from and takes the stamp it is given", () => {
    const stamp = stampNow(new Date(1_000));
    const next = nextCallEvent(request, "ToolCallRejected", { stage: "registry", error: { code: "UNKNOWN_TOOL", message: "no", retryable: false } }, stamp);
    expect(next).toMatchObject({
      type: "ToolCallRejected",
      eventId: stamp.eventId,
      ts: "1970-01-01T00:00:01.000Z",
      callId: request.callId,
      domain: "kb",
      tool: "kb_search",
      principal: "alice",
      mode: "plan",
      correlationId: "run-1",
      parentCallId: "parent-1",
      causationId: request.eventId,
    });
    expect(WardenEventSchema.safeParse(next).success).toBe(true);
  });

  it("writes this code's schema version even when the cause was read in another", () => {
    const older = { ...request, v: 0 } as unknown as ToolCallRequested;
    expect(nextCallEvent(older, "ToolCallRejected", { stage: "registry", error: { code: "INTERNAL", message: "x", retryable: true } }, stampNow()).v).toBe(EVENT_SCHEMA_VERSION);
  });

  it("names another cause, the resolved tool or the authenticated principal when told", () => {
    const next = nextCallEvent(request, "ToolCallRejected", { stage: "registry", error: { code: "PRINCIPAL_MISMATCH", message: "x", retryable: false } }, stampNow(), {
      causationId: null,
      tool: "kb.search",
      principal: "bob",
    });
    expect([next.causationId, next.tool, next.principal]).toEqual([null, "kb.search", "bob"]);
  });

  it("leaves out a parent the call does not have", () => {
    const { parentCallId: _, ...top } = request;
    expect("parentCallId" in nextCallEvent(top, "ToolCallRejected", { stage: "registry", error: { code: "INTERNAL", message: "x", retryable: true } }, stampNow())).toBe(false);
  });
});
