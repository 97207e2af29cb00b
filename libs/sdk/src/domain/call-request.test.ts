import { describe, expect, it } from "vitest";
import { MAX_REQUEST_BYTES } from "@warden/contracts/subjects";
import { buildCallRequest, type CallRequestInput } from "./call-request.js";

const base: CallRequestInput = {
  callId: "call1",
  eventId: "ev1",
  tool: "kb.search",
  args: { query: "refund" },
  principal: "support-bot",
  mode: "llm",
  runId: "run1",
  scope: null,
  flags: {},
  now: new Date("2025-01-01T00:00:00.000Z"),
};

describe("buildCallRequest", () => {
  it("builds a ToolCallRequested under the tool's domain with the run as correlation id", () => {
    const r = buildCallRequest({ ...base, version: "1.0.0", parentCallId: "parent1", flags: { kbAdmin: true } });
    expect(r).toMatchObject({
      ok: true,
      value: {
        type: "ToolCallRequested",
        domain: "kb",
        callId: "call1",
        eventId: "ev1",
        correlationId: "run1",
        causationId: null,
        parentCallId: "parent1",
        ts: "2025-01-01T00:00:00.000Z",
        data: { args: { query: "refund" }, version: "1.0.0", flags: { kbAdmin: true }, scope: null },
      },
    });
  });

  it("publishes a name without a domain under unresolved", () => {
    const r = buildCallRequest({ ...base, tool: "search_everything" });
    expect(r.ok && r.value.domain).toBe("unresolved");
  });

  it("refuses an unsafe principal", () => {
    for (const principal of ["support.bot", "a*", "a b", "", "x>"]) {
      const r = buildCallRequest({ ...base, principal });
      expect(r.ok ? "ok" : r.error.code, principal).toBe("INVALID_REQUEST");
    }
  });

  it("refuses a tool name with a wildcard or whitespace", () => {
    for (const tool of ["kb.*", "kb.>", "kb search"]) {
      const r = buildCallRequest({ ...base, tool });
      expect(r.ok ? "ok" : r.error.code, tool).toBe("INVALID_REQUEST");
    }
  });

  it("refuses a scope that is not a safe token and args that are not JSON", () => {
    const badScope = buildCallRequest({ ...base, scope: "ticket page" });
    expect(badScope.ok ? "ok" : badScope.error.message).toMatch(/data\.scope/);
    const badArgs = buildCallRequest({ ...base, args: { when: () => 1 } });
    expect(badArgs.ok ? "ok" : badArgs.error.code).toBe("INVALID_REQUEST");
  });

  it("refuses a request whose serialized event is over the size limit", () => {
    const r = buildCallRequest({ ...base, args: { text: "x".repeat(MAX_REQUEST_BYTES) } });
    expect(r.ok ? "ok" : r.error.code).toBe("PAYLOAD_TOO_LARGE");
  });
});
