import { beforeAll, describe, expect, it } from "vitest";
import { createRegistryClient } from "@warden/sdk";
import { appendEvent, encodeJson, ensureStageConsumer, readEvent } from "@warden/bus";
import { newId, type ToolArgsValidated, type ToolCallRejected, type ToolCallRequested } from "@warden/contracts/events";
import {
  callEventSubject,
  MAX_REQUEST_BYTES,
  parseToolName,
  resolveToolName,
  STREAM_CALLS,
  STREAM_DLQ,
  stageFilterSubject,
} from "@warden/contracts/subjects";
import { argsHash } from "@warden/contracts/json";
import { eventually } from "@warden/testing";
import { descriptor, request } from "../../test-support/fixtures.js";
import { useRegistryHarness, uniqueDomain } from "../../test-support/registry-harness.js";

type Answer = { type: "validated"; event: ToolArgsValidated } | { type: "rejected"; event: ToolCallRejected };

describe("the registry validation stage", () => {
  const h = useRegistryHarness();
  const domain = uniqueDomain("kb");
  const search = `${domain}.search`;
  const legacy = `${domain}.legacy`;

  beforeAll(async () => {
    const r = await createRegistryClient(h.bus).register([descriptor({ name: search }), descriptor({ name: legacy })]);
    if (!r.ok) throw new Error(r.error.message);
    const off = await createRegistryClient(h.bus).setStatus({ name: legacy, status: "disabled" });
    if (!off.ok) throw new Error(off.error.message);
  });

  /** Publishes a request the way a caller does: the domain from the name, else `unresolved`. */
  async function call(tool: string, args: unknown, extra: Partial<ToolCallRequested> & { version?: string } = {}): Promise<ToolCallRequested> {
    const name = resolveToolName(tool);
    const req = request({ tool, args, domain: (name && parseToolName(name)?.domain) ?? "unresolved", ...extra });
    expect((await appendEvent(h.bus, req)).status).toBe("written");
    return req;
  }

  async function answerTo(req: { domain: string; callId: string }): Promise<Answer> {
    return eventually(async () => {
      const validated = await readEvent(h.bus, req.domain, req.callId, "ToolArgsValidated");
      if (validated) return { type: "validated", event: validated } as const;
      const rejected = await readEvent(h.bus, req.domain, req.callId, "ToolCallRejected");
      if (rejected) return { type: "rejected", event: rejected } as const;
      throw new Error(`no answer yet for ${req.callId}`);
    });
  }

  async function rejectionOf(req: ToolCallRequested): Promise<ToolCallRejected> {
    const a = await answerTo(req);
    if (a.type !== "rejected") throw new Error(`expected a rejection, got ${a.type}`);
    return a.event;
  }

  async function dlqHas(subject: string): Promise<string> {
    return eventually(async () => {
      const info = await h.bus.jsm.streams.info(STREAM_DLQ);
      for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq++) {
        const m = await h.bus.jsm.streams.getMessage(STREAM_DLQ, { seq }).catch(() => null);
        if (m?.header.get("Warden-Dlq-Subject") === subject) return m.header.get("Warden-Dlq-Reason");
      }
      throw new Error(`${subject} is not in the DLQ yet`);
    });
  }

  it("validates a call by tool name and binds it to the version, hash and args", async () => {
    const req = await call(search, { query: "refund", limit: 3 }, { parentCallId: "parent-1", mode: "plan" });
    const a = await answerTo(req);
    expect(a.type).toBe("validated");
    expect(a.event).toMatchObject({
      type: "ToolArgsValidated",
      tool: search,
      principal: "alice",
      mode: "plan",
      causationId: req.eventId,
      correlationId: req.correlationId,
      parentCallId: "parent-1",
      data: { version: "1.0.0", grade: "read", args: { query: "refund", limit: 3 }, argsHash: argsHash({ limit: 3, query: "refund" }) },
    });
    expect(a.type === "validated" && a.event.data.requestedAs).toBeUndefined();
  });

  it("validates a call by wire name and records the name it was asked by", async () => {
    const req = await call(`${domain}__search`, { query: "refund" });
    const a = await answerTo(req);
    expect(a).toMatchObject({ type: "validated", event: { tool: search, data: { requestedAs: `${domain}__search` } } });
  });

  it("rejects an unknown tool as UNKNOWN_TOOL", async () => {
    const req = await call("search_everything", { query: "x" });
    expect(req.domain).toBe("unresolved");
    const ev = await rejectionOf(req);
    expect(ev).toMatchObject({ tool: "search_everything", causationId: req.eventId, data: { stage: "registry", error: { code: "UNKNOWN_TOOL", retryable: false } } });
  });

  it("rejects a hallucinated wire name as UNKNOWN_TOOL", async () => {
    const ev = await rejectionOf(await call(`${domain}__serch`, { query: "x" }));
    expect(ev.data.error.code).toBe("UNKNOWN_TOOL");
    expect(ev.tool).toBe(`${domain}__serch`);
  });

  it("rejects a pinned version that does not exist as UNKNOWN_TOOL", async () => {
    const ev = await rejectionOf(await call(search, { query: "x" }, { version: "7.0.0" }));
    expect(ev.data.error).toMatchObject({ code: "UNKNOWN_TOOL" });
    expect(ev.data.error.message).toContain("7.0.0");
  });

  it("rejects invalid args as INVALID_ARGS with every failing path", async () => {
    const ev = await rejectionOf(await call(search, { limit: 100, extra: true }));
    expect(ev.data.error.code).toBe("INVALID_ARGS");
    expect(ev.data.error.details?.["errors"]).toEqual(
      expect.arrayContaining([
        { path: "/query", message: "is required" },
        { path: "/limit", message: "must be <= 20" },
        { path: "/extra", message: "is not an allowed property" },
      ]),
    );
  });

  it("rejects args over the size limit as PAYLOAD_TOO_LARGE", async () => {
    const ev = await rejectionOf(await call(search, { query: "x".repeat(MAX_REQUEST_BYTES) }));
    expect(ev.data.error.code).toBe("PAYLOAD_TOO_LARGE");
  });

  it("rejects a disabled tool as TOOL_DISABLED, and follows enable and disable as they happen", async () => {
    expect((await rejectionOf(await call(legacy, { query: "x" }))).data.error.code).toBe("TOOL_DISABLED");
    expect((await createRegistryClient(h.bus).setStatus({ name: legacy, status: "enabled" })).ok).toBe(true);
    await eventually(async () => expect((await answerTo(await call(legacy, { query: "x" }))).type).toBe("validated"));
    expect((await createRegistryClient(h.bus).setStatus({ name: legacy, status: "disabled" })).ok).toBe(true);
    await eventually(async () => expect((await rejectionOf(await call(legacy, { query: "x" }))).data.error.code).toBe("TOOL_DISABLED"));
  });

  it("keeps an old rejection when the request is replayed after the tool was enabled (regression: recreated durables)", async () => {
    const domainX = uniqueDomain("replay");
    const tool = `${domainX}.thing`;
    const registry = createRegistryClient(h.bus);
    expect((await registry.register([descriptor({ name: tool })], "disabled")).ok).toBe(true);
    const req = request({ tool, args: { query: "x" }, domain: domainX });
    const appended = await appendEvent(h.bus, req);
    if (appended.status !== "written") throw new Error(`request not written: ${appended.status}`);
    await eventually(async () => expect(await readEvent(h.bus, domainX, req.callId, "ToolCallRejected")).toMatchObject({ data: { error: { code: "TOOL_DISABLED" } } }));
    expect((await registry.setStatus({ name: tool, status: "enabled" })).ok).toBe(true);
    // the durable made again under the running stage delivers every request once more, from the start
    await h.bus.jsm.consumers.delete(STREAM_CALLS, "registry-validate");
    await ensureStageConsumer(h.bus, "registry-validate", stageFilterSubject("ToolCallRequested"), { maxDeliver: 5, ackWaitMs: 30_000, maxAckPending: 256 });
    await eventually(async () => {
      const info = await h.bus.jsm.consumers.info(STREAM_CALLS, "registry-validate");
      // past the replayed request (the stream's last message may be an event outside the filter)
      expect(info.delivered.stream_seq).toBeGreaterThanOrEqual(appended.seq);
      expect(info.num_pending + info.num_ack_pending).toBe(0);
    }, 15_000);
    expect(await readEvent(h.bus, domainX, req.callId, "ToolArgsValidated")).toBeUndefined();
  });

  it("rejects a request whose principal differs from its subject's, answering in the subject's name", async () => {
    const req = request({ tool: search, domain });
    await h.bus.js.publish(callEventSubject(domain, req.callId, "ToolCallRequested", "mallory"), encodeJson(req));
    const ev = await rejectionOf(req);
    expect(ev).toMatchObject({ principal: "mallory", data: { error: { code: "PRINCIPAL_MISMATCH" } } });
  });

  it("sends a malformed message to WARDEN_DLQ and keeps running", async () => {
    const subject = callEventSubject(domain, newId(), "ToolCallRequested", "alice");
    await h.bus.js.publish(subject, new TextEncoder().encode("{not json"));
    expect(await dlqHas(subject)).toMatch(/malformed JSON/);
    expect((await answerTo(await call(search, { query: "still here" }))).type).toBe("validated");
  });

  it("sends a second request reusing a callId to the DLQ and keeps the first answer", async () => {
    const first = await call(search, { query: "first" });
    expect((await answerTo(first)).type).toBe("validated");
    const second = request({ tool: search, domain, callId: first.callId, principal: "bob", args: { query: "second" } });
    expect((await appendEvent(h.bus, second)).status).toBe("written");
    expect(await dlqHas(callEventSubject(domain, first.callId, "ToolCallRequested", "bob"))).toMatch(/reused the callId/);
    const a = await answerTo(first);
    expect(a.event.causationId).toBe(first.eventId);
    expect(await readEvent(h.bus, domain, first.callId, "ToolCallRejected")).toBeUndefined();
    // a reuse that would be rejected must not write a rejection onto the validated call either
    const third = request({ tool: search, domain, callId: first.callId, principal: "carol", args: { limit: 0 } });
    expect((await appendEvent(h.bus, third)).status).toBe("written");
    expect(await dlqHas(callEventSubject(domain, first.callId, "ToolCallRequested", "carol"))).toMatch(/reused the callId/);
    expect(await readEvent(h.bus, domain, first.callId, "ToolCallRejected")).toBeUndefined();
  });
});
