import { beforeAll, describe, expect, it } from "vitest";
import { createRegistryClient } from "@warden/sdk";
import { encodeJson, readEvent, requestRpc } from "@warden/bus";
import { newId, type ToolCallRejected, type WardenEvent } from "@warden/contracts/events";
import { callEventSubject, callReadSubject, MAX_REQUEST_DEPTH, STREAM_CALLS, STREAM_DLQ } from "@warden/contracts/subjects";
import { eventually, useConnections } from "@warden/testing";
import { descriptor, request } from "../../test-support/fixtures.js";
import { useRegistryHarness, uniqueDomain } from "../../test-support/registry-harness.js";

const text = (s: string) => new TextEncoder().encode(s);
const nested = (levels: number) => `${"[".repeat(levels)}${"]".repeat(levels)}`;

describe("the registry answers requests it cannot read", () => {
  const h = useRegistryHarness();
  const domain = uniqueDomain("kb");
  // the caller publishes as itself: the server lets it use only its own request subject
  const callers = useConnections(h, { alice: { kind: "agent", name: "alice" } });
  const search = `${domain}.search`;

  beforeAll(async () => {
    const r = await createRegistryClient(h.bus).register([descriptor({ name: search, inputSchema: { type: "object" } })]);
    if (!r.ok) throw new Error(r.error.message);
  });

  /** Publishes raw bytes on alice's request subject for a new call; returns the call id. */
  async function publishRaw(data: Uint8Array, callId = newId()): Promise<string> {
    await callers.alice.js.publish(callEventSubject(domain, callId, "ToolCallRequested", "alice"), data);
    return callId;
  }

  const rejectionOf = (callId: string): Promise<ToolCallRejected> =>
    eventually(async () => {
      const r = await readEvent(h.bus, domain, callId, "ToolCallRejected");
      expect(r).toBeDefined();
      return r!;
    });

  async function lettersFor(callId: string): Promise<string[]> {
    const info = await h.bus.jsm.streams.info(STREAM_DLQ);
    const out: string[] = [];
    for (let seq = info.state.first_seq; seq <= info.state.last_seq && seq > 0; seq++) {
      const m = await h.bus.jsm.streams.getMessage(STREAM_DLQ, { seq }).catch(() => null);
      if ((m?.header.get("Warden-Dlq-Subject") ?? "").includes(callId)) out.push(m!.header.get("Warden-Dlq-Reason"));
    }
    return out;
  }

  const stageIdle = () =>
    eventually(async () => {
      const info = await h.bus.jsm.consumers.info(STREAM_CALLS, "registry-validate");
      expect(info.num_pending + info.num_ack_pending).toBe(0);
    });

  const valid = () => request({ tool: search, domain, principal: "alice", args: { query: "x" } });

  it("rejects every kind of unreadable request in the subject's name, records each in the DLQ once and never redelivers it (regression: callers waited for a timeout)", async () => {
    const base = valid();
    const deepJson = (levels: number) => text(JSON.stringify({ ...base, data: { ...base.data, args: "@" } }).replace('"@"', nested(levels)));
    const kinds = {
      notJson: text("{not json"),
      notUtf8: new Uint8Array([...text('{"v":1,"type":"ToolCallRequested","tool":"caf'), 0xe9, ...text('"}')]),
      deep50k: deepJson(50_000),
      schemaInvalid: encodeJson({ v: 1, type: "ToolCallRequested", tool: search, mode: "plan" }),
      otherCallId: encodeJson(valid()),
    };
    const calls = new Map<string, string>();
    for (const [kind, data] of Object.entries(kinds)) calls.set(kind, await publishRaw(data));
    for (const [kind, callId] of calls) {
      const ev = await rejectionOf(callId);
      expect(ev, kind).toMatchObject({
        domain,
        callId,
        principal: "alice",
        correlationId: callId,
        data: { stage: "registry", error: { code: "INVALID_REQUEST", retryable: false } },
      });
    }
    // what could be read is named; what could not is a safe default
    expect(await rejectionOf(calls.get("notJson")!)).toMatchObject({ tool: "unknown", mode: "llm", causationId: null });
    expect(await rejectionOf(calls.get("schemaInvalid")!)).toMatchObject({ tool: search, mode: "plan" });
    expect((await rejectionOf(calls.get("notUtf8")!)).data.error.message).toMatch(/not UTF-8/);
    expect((await rejectionOf(calls.get("deep50k")!)).data.error.message).toMatch(/nested too deeply/);
    // the details name the failure with the code every reader and DLQ letter uses
    const codes = { notJson: "MALFORMED_JSON", notUtf8: "NOT_UTF8", deep50k: "TOO_DEEP", schemaInvalid: "SCHEMA_INVALID", otherCallId: "SUBJECT_MISMATCH" };
    for (const [kind, code] of Object.entries(codes)) expect((await rejectionOf(calls.get(kind)!)).data.error.details, kind).toMatchObject({ reason: code });
    await stageIdle();
    for (const [kind, code] of Object.entries(codes)) expect(await lettersFor(calls.get(kind)!), kind).toEqual([expect.stringMatching(new RegExp(`^${code}: `))]);
    for (const [kind, callId] of calls) expect(await lettersFor(callId), kind).toHaveLength(1);
  });

  it("rejects a request for another call id than its subject's, and its caller reads that rejection", async () => {
    const body = valid();
    const callId = await publishRaw(encodeJson(body));
    const ev = await rejectionOf(callId);
    expect(ev).toMatchObject({ causationId: body.eventId, principal: "alice", data: { error: { code: "INVALID_REQUEST" } } });
    expect(ev.data.error.message).toContain(body.callId);
    // nothing is written on the call the body names
    expect(await readEvent(h.bus, domain, body.callId, "ToolArgsValidated")).toBeUndefined();
    const read = await requestRpc(callers.alice, callReadSubject("alice", domain, callId), {}, 5_000);
    expect(read.ok).toBe(true);
    const events = read.ok ? (read.value as { events: WardenEvent[] }).events : [];
    expect(events.find((e) => e.type === "ToolCallRejected")).toMatchObject({ eventId: ev.eventId });
  });

  it("rejects args nested deeper than MAX_REQUEST_DEPTH as INVALID_REQUEST naming the tool, and its caller reads it", async () => {
    const body = valid();
    const callId = body.callId;
    const args = JSON.parse(`{"q":${nested(MAX_REQUEST_DEPTH)}}`) as unknown;
    await publishRaw(encodeJson({ ...body, data: { ...body.data, args } }), callId);
    const ev = await rejectionOf(callId);
    expect(ev).toMatchObject({ tool: search, causationId: body.eventId, data: { error: { code: "INVALID_REQUEST" } } });
    expect(ev.data.error.message).toMatch(/nested too deeply/);
    const read = await requestRpc(callers.alice, callReadSubject("alice", domain, callId), {}, 5_000);
    const events = read.ok ? (read.value as { events: WardenEvent[] }).events : [];
    expect(events.map((e) => e.type)).toEqual(["ToolCallRequested", "ToolCallRejected"]);
  });

  it("writes no rejection onto a call already validated for another request: the unreadable one only goes to the DLQ", async () => {
    const first = valid();
    await callers.alice.js.publish(callEventSubject(domain, first.callId, "ToolCallRequested", "alice"), encodeJson(first));
    await eventually(async () => expect(await readEvent(h.bus, domain, first.callId, "ToolArgsValidated")).toBeDefined());
    const bob = await h.nats.connectAs({ kind: "agent", name: "bob" });
    await bob.js.publish(callEventSubject(domain, first.callId, "ToolCallRequested", "bob"), text("{not json"));
    await eventually(async () => expect((await lettersFor(first.callId)).join()).toMatch(/malformed JSON.*reused the callId/));
    await stageIdle();
    expect(await readEvent(h.bus, domain, first.callId, "ToolCallRejected")).toBeUndefined();
  });
});
