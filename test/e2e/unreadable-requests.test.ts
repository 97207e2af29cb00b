import { describe, expect, it } from "vitest";
import { createAgentClient } from "@warden/sdk";
import { encodeJson, readEvent, requestRpc } from "@warden/bus";
import { newId, type ToolCallRejected, type ToolCallRequested, type WardenEvent } from "@warden/contracts/events";
import { callEventSubject, callReadSubject } from "@warden/contracts/subjects";
import { deadLetters, eventually } from "@warden/testing";
import { handMadeRequest } from "../support/hand-made-request.js";
import { useTestWarden } from "../support/use-test-warden.js";

const text = (s: string) => new TextEncoder().encode(s);

/** A well-formed request of support-bot's, as its SDK would write it. */
function requestOf(callId: string, args: unknown = { query: "refund" }): ToolCallRequested {
  return handMadeRequest({ callId, tool: "kb.search", principal: "support-bot", mode: "llm", data: { args: args as ToolCallRequested["data"]["args"] } });
}

describe("requests Warden cannot accept are answered, not left to time out", () => {
  const t = useTestWarden({ demo: true }, async (w) => {
    const botBus = await w.agentBus("support-bot");
    return { botBus, bot: createAgentClient({ bus: botBus, principal: "support-bot" }) };
  });

  const rejectionOf = (callId: string): Promise<ToolCallRejected> =>
    eventually(async () => {
      const r = await readEvent(t.w.bus, "kb", callId, "ToolCallRejected");
      expect(r).toBeDefined();
      return r!;
    });

  it("rejects raw requests that are not JSON, not UTF-8, nested 50,000 levels, schema-invalid or for another call id, as the agent that sent them, each in the DLQ once", async () => {
    const deep = JSON.stringify(requestOf("x", "@")).replace('"@"', `${"[".repeat(50_000)}${"]".repeat(50_000)}`);
    const kinds: Record<string, (callId: string) => Uint8Array> = {
      notJson: () => text("{not json"),
      // a valid request but for one byte: "café" in Latin-1 (0xe9 alone is not UTF-8)
      notUtf8: (callId) => encodeJson(requestOf(callId, { query: "caf~" })).map((b) => (b === 0x7e ? 0xe9 : b)),
      deep50k: () => text(deep),
      schemaInvalid: (callId) => encodeJson({ ...requestOf(callId), data: { args: {} } }),
      otherCallId: () => encodeJson(requestOf(newId())),
    };
    const calls = new Map<string, string>();
    for (const [kind, body] of Object.entries(kinds)) {
      const callId = newId();
      // the agent's own subject: the server lets any bytes through on it
      await t.botBus.js.publish(callEventSubject("kb", callId, "ToolCallRequested", "support-bot"), body(callId));
      calls.set(kind, callId);
    }
    for (const [kind, callId] of calls) {
      expect(await rejectionOf(callId), kind).toMatchObject({
        principal: "support-bot",
        domain: "kb",
        callId,
        data: { stage: "registry", error: { code: "INVALID_REQUEST", retryable: false } },
      });
    }
    // the registry and the projector both skip these; each is recorded once, under the one code both use
    const codes: Record<string, string> = { notJson: "MALFORMED_JSON", notUtf8: "NOT_UTF8", deep50k: "TOO_DEEP", schemaInvalid: "SCHEMA_INVALID", otherCallId: "SUBJECT_MISMATCH" };
    for (const [kind, callId] of calls) {
      expect((await rejectionOf(callId)).data.error.details, kind).toMatchObject({ reason: codes[kind] });
      await eventually(async () => expect(await deadLetters(t.w.bus, callId), kind).toEqual([expect.stringMatching(new RegExp(`^${codes[kind]}: `))]));
    }
    expect(await t.bot.call("kb.search", { query: "still answering" }, { mode: "llm" })).toMatchObject({ ok: true });
  });

  it("lets the caller of a request for another call id read its rejection", async () => {
    const callId = newId();
    const body = requestOf(newId());
    await t.botBus.js.publish(callEventSubject("kb", callId, "ToolCallRequested", "support-bot"), encodeJson(body));
    await rejectionOf(callId);
    const read = await requestRpc(t.botBus, callReadSubject("support-bot", "kb", callId), { wait: "settled", timeoutMs: 5_000 }, 10_000);
    const events = read.ok ? (read.value as { events: WardenEvent[] }).events : [];
    expect(events.find((e) => e.type === "ToolCallRejected")).toMatchObject({ causationId: body.eventId, data: { error: { code: "INVALID_REQUEST" } } });
  });

  it("lets the caller of a request that is not even JSON read its rejection", async () => {
    const callId = newId();
    await t.botBus.js.publish(callEventSubject("kb", callId, "ToolCallRequested", "support-bot"), new TextEncoder().encode("{not json"));
    const read = await requestRpc(t.botBus, callReadSubject("support-bot", "kb", callId), { wait: "settled", timeoutMs: 5_000 }, 10_000);
    const events = read.ok ? (read.value as { events: WardenEvent[] }).events : [];
    expect(events).toEqual([expect.objectContaining({ type: "ToolCallRejected", principal: "support-bot", data: expect.objectContaining({ stage: "registry", error: expect.objectContaining({ code: "INVALID_REQUEST" }) }) })]);
  });

  it("answers an SDK call whose args nest too deeply with INVALID_REQUEST at once, not a timeout", async () => {
    const args = JSON.parse(`{"query":"x","filter":${"[".repeat(100)}${"]".repeat(100)}}`) as unknown;
    const started = Date.now();
    const r = await t.bot.call("kb.search", args, { mode: "llm", timeoutMs: 20_000 });
    expect(r).toMatchObject({ ok: false, status: "rejected", error: { code: "INVALID_REQUEST", retryable: false } });
    expect(r.error?.message).toMatch(/nested too deeply/);
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
