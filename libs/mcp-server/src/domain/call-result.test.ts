import { describe, expect, it } from "vitest";
import type { ToolResult } from "@warden/contracts/events";
import { toMcpCallResult, WARDEN_META_KEY } from "./call-result.js";

const artifact = { id: "a1", sha256: "0".repeat(64), bytes: 1_000_000, contentType: "application/json" };

describe("a Warden result as an MCP tools/call result", () => {
  it("gives a success its output as text, with the call named in _meta", () => {
    const r = toMcpCallResult({ callId: "c1", ok: true, status: "succeeded", data: { n: 1 } }, { hasOutputSchema: false });
    expect(r).toEqual({ content: [{ type: "text", text: '{"n":1}' }], isError: false, _meta: { [WARDEN_META_KEY]: { callId: "c1", status: "succeeded" } } });
  });

  it("gives a success of a tool with an output schema its object output as structured content", () => {
    const r = toMcpCallResult({ callId: "c1", ok: true, status: "succeeded", data: { n: 1 } }, { hasOutputSchema: true });
    expect(r).toMatchObject({ isError: false, structuredContent: { n: 1 } });
  });

  it("makes a truncated output of a tool with an output schema an error saying why, with the artifact linked", () => {
    const r = toMcpCallResult({ callId: "c1", ok: true, status: "succeeded", data: { partial: true }, truncated: true, artifacts: [artifact] }, { hasOutputSchema: true });
    expect(r.isError).toBe(true);
    expect(r).not.toHaveProperty("structuredContent");
    expect(r.content[0]).toMatchObject({ type: "text", text: expect.stringMatching(/^SUCCEEDED, but its output was too large/) });
    expect(r.content[1]).toMatchObject({ type: "resource_link", uri: "warden://artifacts/a1", name: "a1", mimeType: "application/json" });
  });

  it("links each artifact of a preview as a resource", () => {
    const r = toMcpCallResult({ callId: "c1", ok: true, status: "succeeded", data: [1, 2], truncated: true, artifacts: [artifact] }, { hasOutputSchema: false });
    expect(r.isError).toBe(false);
    expect(r.content).toEqual([
      { type: "text", text: "PREVIEW [1,2] [full output stored as artifact a1]" },
      expect.objectContaining({ type: "resource_link", uri: "warden://artifacts/a1" }),
    ]);
  });

  it("answers a call that waits for a person with PENDING and its approval id, never structured content", () => {
    const pending: ToolResult = {
      callId: "c2",
      ok: false,
      status: "awaiting_approval",
      requiresConfirm: true,
      approvalId: "ap1",
      error: { code: "CONFIRMATION_REQUIRED", message: "waits", retryable: false },
    };
    const r = toMcpCallResult(pending, { hasOutputSchema: true });
    expect(r.isError).toBe(true);
    expect(r.content).toEqual([{ type: "text", text: expect.stringMatching(/^PENDING: this call needs a person's approval \(approvalId ap1\); it has not run yet\. Only a person can confirm it: do not call it again/) }]);
    expect(r._meta).toEqual({ [WARDEN_META_KEY]: { callId: "c2", status: "awaiting_approval", approvalId: "ap1", code: "CONFIRMATION_REQUIRED", retryable: false } });
    const noted = toMcpCallResult(pending, { hasOutputSchema: false, note: "Confirm it in your inbox." });
    expect(noted.content).toEqual([r.content[0], { type: "text", text: "Confirm it in your inbox." }]);
  });

  it("tells a model not to ask again for a call whose wait ran out: it may still run", () => {
    const r = toMcpCallResult(
      { callId: "c4", ok: false, status: "pending", error: { code: "WAIT_TIMEOUT", message: "no outcome within 30000 ms", retryable: true } },
      { hasOutputSchema: false },
    );
    expect(r.isError).toBe(true);
    expect(r.content[0]).toMatchObject({ type: "text", text: expect.stringMatching(/^PENDING: call c4 has not ended yet.*Do not call it again/) });
    expect(r._meta).toMatchObject({ [WARDEN_META_KEY]: { status: "pending", code: "WAIT_TIMEOUT" } });
  });

  it("answers a refusal as an error result the model can correct itself from", () => {
    const r = toMcpCallResult(
      { callId: "c3", ok: false, status: "rejected", error: { code: "INVALID_ARGS", message: "query: expected string", retryable: false } },
      { hasOutputSchema: false },
    );
    expect(r).toMatchObject({ isError: true, content: [{ type: "text", text: "ERROR INVALID_ARGS: query: expected string. Do not retry the same call unchanged." }] });
  });

  it("links the handle resource of a call that goes on, and says asking again follows it", () => {
    const pending: ToolResult = { callId: "c5", ok: false, status: "awaiting_approval", approvalId: "ap5", error: { code: "CONFIRMATION_REQUIRED", message: "waits", retryable: false } };
    const r = toMcpCallResult(pending, { hasOutputSchema: false, handle: true });
    expect(r.content[1]).toMatchObject({ type: "text", text: expect.stringMatching(/^Read warden:\/\/calls\/c5 later for its outcome\. Calling again with the same arguments/) });
    expect(r.content[2]).toMatchObject({ type: "resource_link", uri: "warden://calls/c5", mimeType: "application/json" });
    expect(r._meta).toMatchObject({ [WARDEN_META_KEY]: { callId: "c5", handle: "warden://calls/c5" } });
  });
});
