import { describe, expect, it } from "vitest";
import { messageHash, WardenEventSchema } from "@warden/contracts/events";
import { request } from "../../test-support/fixtures.js";
import { peekRequest, unreadableRejectedEvent, unreadableRequestError } from "./unreadable-request.js";

const subject = { domain: "kb", callId: "call-1", principal: "support-bot" };
const now = new Date("2026-01-01T00:00:00.000Z");

describe("peekRequest", () => {
  it("reads tool, mode and event id only when each is well-formed", () => {
    expect(peekRequest({ tool: "kb.search", mode: "plan", eventId: "ev-1", principal: "alice" })).toEqual({ tool: "kb.search", mode: "plan", eventId: "ev-1" });
    expect(peekRequest({ tool: "", mode: "root", eventId: "a.b" })).toEqual({});
    expect(peekRequest({ tool: "x".repeat(201), mode: 3, eventId: ["e"] })).toEqual({});
    expect(peekRequest([1, 2])).toEqual({});
    expect(peekRequest("text")).toEqual({});
    expect(peekRequest(undefined)).toEqual({});
  });
});

describe("unreadableRequestError", () => {
  it("calls a too-large request PAYLOAD_TOO_LARGE and any other unreadable body INVALID_REQUEST, not retryable, naming the message", () => {
    expect(unreadableRequestError(subject, "TOO_LARGE", "too large: 300000 bytes", 7)).toMatchObject({ code: "PAYLOAD_TOO_LARGE", retryable: false });
    for (const code of ["NOT_UTF8", "MALFORMED_JSON", "TOO_DEEP", "SCHEMA_INVALID"] as const) {
      const e = unreadableRequestError(subject, code, "why", 7);
      expect(e).toMatchObject({ code: "INVALID_REQUEST", retryable: false, details: { reason: code, requestSeq: 7 } });
    }
  });

  it("calls a valid request that claims another principal PRINCIPAL_MISMATCH, and one for another call INVALID_REQUEST", () => {
    const alice = request({ domain: "kb", callId: "call-1", principal: "alice" });
    expect(unreadableRequestError(subject, "SUBJECT_MISMATCH", "mismatch", 7, alice)).toMatchObject({ code: "PRINCIPAL_MISMATCH" });
    const other = request({ domain: "kb", callId: "call-2", principal: "support-bot" });
    const e = unreadableRequestError(subject, "SUBJECT_MISMATCH", "mismatch", 7, other);
    expect(e).toMatchObject({ code: "INVALID_REQUEST" });
    expect(e.message).toContain("call-2");
  });
});

describe("unreadableRejectedEvent", () => {
  const notJson = messageHash(new TextEncoder().encode("{not json"));

  it("is a valid registry rejection in the subject's name, with safe defaults for what cannot be read", () => {
    const error = unreadableRequestError(subject, "MALFORMED_JSON", "malformed JSON", 7);
    const ev = unreadableRejectedEvent(subject, {}, notJson, error, "ev-9", now);
    expect(WardenEventSchema.safeParse(ev).success).toBe(true);
    expect(ev).toMatchObject({
      type: "ToolCallRejected",
      domain: "kb",
      callId: "call-1",
      principal: "support-bot",
      tool: "unknown",
      mode: "llm",
      causationId: null,
      // it still answers the bytes it could not read
      causeHash: notJson,
      correlationId: "call-1",
      data: { stage: "registry", error: { code: "INVALID_REQUEST" } },
    });
  });

  it("names the request's tool, mode and event when they could be read", () => {
    const error = unreadableRequestError(subject, "SCHEMA_INVALID", "bad", 7);
    const ev = unreadableRejectedEvent(subject, { tool: "kb.search", mode: "plan", eventId: "ev-1" }, notJson, error, "ev-9", now);
    expect(ev).toMatchObject({ tool: "kb.search", mode: "plan", causationId: "ev-1", causeHash: notJson, principal: "support-bot" });
  });
});
