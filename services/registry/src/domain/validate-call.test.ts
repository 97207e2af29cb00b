import { describe, expect, it } from "vitest";
import { MAX_REQUEST_BYTES } from "@warden/contracts/subjects";
import { type ToolRecord } from "@warden/contracts/descriptor";
import { versionsByName } from "@warden/policy-engine";
import { record, request } from "../../test-support/fixtures.js";
import { ArgsValidators } from "./args-validator.js";
import { argsValidatedEvent, registryRejectedEvent } from "./call-events.js";
import { validateCall, type CallLookup } from "./validate-call.js";

function lookupOf(records: ToolRecord[]): CallLookup {
  const byName = versionsByName(records);
  const validators = new ArgsValidators();
  return { versionsOf: (n) => byName.get(n) ?? [], checkArgs: (r, a) => validators.validate(r, a) };
}

const tools = lookupOf([
  record(),
  record({ version: "1.1.0", description: "Use when the customer asks a question; newer ranking of the articles." }),
  record({ version: "2.0.0" }, "disabled"),
]);

describe("validateCall", () => {
  it("binds a call by name to the newest enabled version", () => {
    const r = validateCall(request(), "alice", tools);
    expect(r).toMatchObject({ ok: true, value: { tool: "kb.search", version: "1.1.0", grade: "read" } });
    expect(r.ok && r.value.requestedAs).toBeUndefined();
  });

  it("accepts a wire name and records it as requestedAs", () => {
    const r = validateCall(request({ tool: "kb__search" }), "alice", tools);
    expect(r).toMatchObject({ ok: true, value: { tool: "kb.search", requestedAs: "kb__search" } });
  });

  it("rejects a principal that differs from the subject's", () => {
    expect(validateCall(request(), "mallory", tools)).toMatchObject({ ok: false, error: { code: "PRINCIPAL_MISMATCH" } });
  });

  it("rejects unknown and hallucinated names as UNKNOWN_TOOL", () => {
    for (const tool of ["kb.serch", "kb__serch", "search_everything", "kb.search.v2"]) {
      expect(validateCall(request({ tool }), "alice", tools)).toMatchObject({ ok: false, error: { code: "UNKNOWN_TOOL" } });
    }
  });

  it("rejects a tool named under another domain as UNKNOWN_TOOL", () => {
    expect(validateCall(request({ domain: "ticket" }), "alice", tools)).toMatchObject({ ok: false, error: { code: "UNKNOWN_TOOL" } });
  });

  it("honours a pinned version and refuses one that does not exist or is disabled", () => {
    expect(validateCall(request({ version: "1.0.0" }), "alice", tools)).toMatchObject({ ok: true, value: { version: "1.0.0" } });
    expect(validateCall(request({ version: "9.9.9" }), "alice", tools)).toMatchObject({ ok: false, error: { code: "UNKNOWN_TOOL" } });
    expect(validateCall(request({ version: "2.0.0" }), "alice", tools)).toMatchObject({ ok: false, error: { code: "TOOL_DISABLED" } });
  });

  it("refuses a tool with no enabled version as TOOL_DISABLED", () => {
    const off = lookupOf([record({}, "disabled"), record({ version: "1.1.0" }, "discovered")]);
    expect(validateCall(request(), "alice", off)).toMatchObject({ ok: false, error: { code: "TOOL_DISABLED" } });
  });

  it("refuses args over the size limit before validating them", () => {
    const big = "x".repeat(MAX_REQUEST_BYTES + 1);
    expect(validateCall(request({ args: { query: big } }), "alice", tools)).toMatchObject({ ok: false, error: { code: "PAYLOAD_TOO_LARGE" } });
  });

  it("rejects invalid args with the failing paths in details.errors", () => {
    const r = validateCall(request({ args: { limit: 99 } }), "alice", tools);
    expect(r).toMatchObject({ ok: false, error: { code: "INVALID_ARGS" } });
    if (r.ok) return;
    expect(r.error.details?.["errors"]).toEqual(
      expect.arrayContaining([
        { path: "/query", message: "is required" },
        { path: "/limit", message: "must be <= 20" },
      ]),
    );
    expect(r.error.message).toContain("/limit");
  });
});

describe("call events", () => {
  it("carries the request's identity and binds the args by hash", () => {
    const req = request({ parentCallId: "parent-1", mode: "plan" });
    const r = validateCall(req, "alice", tools);
    if (!r.ok) throw new Error("must validate");
    const ev = argsValidatedEvent(req, r.value, "ev-1", new Date());
    expect(ev).toMatchObject({
      type: "ToolArgsValidated",
      causationId: req.eventId,
      correlationId: req.correlationId,
      parentCallId: "parent-1",
      mode: "plan",
      principal: "alice",
      tool: "kb.search",
      data: { version: "1.1.0", args: req.data.args, scope: null, flags: {} },
    });
    expect(ev.data.argsHash).toMatch(/^sha256:/);
  });

  it("keeps the requested name on a rejection and may answer in the subject's principal", () => {
    const req = request({ tool: "kb__serch" });
    const ev = registryRejectedEvent(req, { code: "UNKNOWN_TOOL", message: "x", retryable: false }, "ev-2", new Date(), "bob");
    expect(ev).toMatchObject({ tool: "kb__serch", principal: "bob", data: { stage: "registry", error: { code: "UNKNOWN_TOOL" } } });
    expect(ev.parentCallId).toBeUndefined();
  });
});
