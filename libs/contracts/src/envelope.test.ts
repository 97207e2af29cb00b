import { describe, expect, it } from "vitest";
import { requestedEvent } from "../test-support/requested-event.js";
import { answerCallEvent, nextCallEvent, stampNow } from "./envelope.js";
import { eventHash } from "./event-hash.js";
import { EVENT_SCHEMA_VERSION, WardenEventSchema, type ToolCallRequested } from "./events.js";

const request = requestedEvent({ tool: "kb_search", mode: "plan", parentCallId: "parent-1" });

const refusal = { stage: "registry", error: { code: "INTERNAL", message: "x", retryable: true } } as const;

describe("nextCallEvent", () => {
  it("repeats the call's fields, answers the event it is built from by id and hash, and takes the stamp it is given", () => {
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
      causeHash: eventHash(request),
    });
    expect(WardenEventSchema.safeParse(next).success).toBe(true);
  });

  it("names its cause by the hash an auditor computes from the cause's stored bytes", () => {
    const next = nextCallEvent(request, "ToolCallRejected", refusal, stampNow());
    const stored = new TextEncoder().encode(JSON.stringify(request));
    expect(next.causeHash).toBe(eventHash(JSON.parse(new TextDecoder().decode(stored))));
    // and a chain goes on: the answer's own answer names the answer's hash
    const after = nextCallEvent(next, "ToolCallRejected", refusal, stampNow());
    expect(after.causeHash).toBe(eventHash(JSON.parse(JSON.stringify(next))));
    expect(after.causeHash).not.toBe(next.causeHash);
  });

  it("writes this code's schema version even when the cause was read in another", () => {
    const older = { ...request, v: 0 } as unknown as ToolCallRequested;
    expect(nextCallEvent(older, "ToolCallRejected", refusal, stampNow()).v).toBe(EVENT_SCHEMA_VERSION);
  });

  it("names the resolved tool or the authenticated principal when told", () => {
    const next = nextCallEvent(request, "ToolCallRejected", { stage: "registry", error: { code: "PRINCIPAL_MISMATCH", message: "x", retryable: false } }, stampNow(), {
      tool: "kb.search",
      principal: "bob",
    });
    expect([next.causationId, next.causeHash, next.tool, next.principal]).toEqual([request.eventId, eventHash(request), "kb.search", "bob"]);
  });

  it("cannot default the cause from a part of an event: a part must name its cause with answerCallEvent", () => {
    const { data: _, type: __, ...envelopeOnly } = request;
    // @ts-expect-error only a whole event (whose hash is its stored event's) is answered by default
    expect(nextCallEvent(envelopeOnly, "ToolCallRejected", refusal, stampNow()).callId).toBe(request.callId);
  });

  it("leaves out a parent the call does not have", () => {
    const { parentCallId: _, ...top } = request;
    expect("parentCallId" in nextCallEvent(top, "ToolCallRejected", refusal, stampNow())).toBe(false);
  });
});

describe("answerCallEvent", () => {
  it("answers the cause it is given, id and hash together, with the call's fields", () => {
    const cause = { eventId: "started-1", hash: `sha256:${"a".repeat(64)}` };
    const { eventId: _, data: __, type: ___, ...call } = request;
    const next = answerCallEvent(call, cause, "ToolCallRejected", refusal, stampNow());
    expect(next).toMatchObject({ callId: request.callId, principal: "alice", parentCallId: "parent-1", causationId: "started-1", causeHash: cause.hash });
    expect(WardenEventSchema.safeParse(next).success).toBe(true);
  });

  it("may answer a message no event id could be read from, by its hash alone", () => {
    const next = answerCallEvent(request, { eventId: null, hash: `sha256:${"b".repeat(64)}` }, "ToolCallRejected", refusal, stampNow());
    expect([next.causationId, next.causeHash]).toEqual([null, `sha256:${"b".repeat(64)}`]);
    expect(WardenEventSchema.safeParse(next).success).toBe(true);
  });
});
