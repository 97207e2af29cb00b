import { describe, expect, it } from "vitest";
import { newId, type ToolCallRequested } from "@warden/contracts/events";
import { callEventSubject, consumerName, stageFilterSubject, STREAM_CALLS, STREAM_DLQ } from "@warden/contracts/subjects";
import { deadLetters, eventually, useTestNats } from "@warden/testing";
import { ACK, appendEvent, decodeJson, encodeJson, ensureStageConsumer, runStage, silentLogger, type StageSpec, type UndecodableCode } from "@warden/bus";
import { handMadeRequest } from "../support/hand-made-request.js";

function request(domain: string): ToolCallRequested {
  return handMadeRequest({ tool: `${domain}.x`, principal: "p1", mode: "plan", runId: "r1" });
}

describe("runStage", () => {
  const t = useTestNats();

  const pending = async (durable: string) => {
    const info = await t.bus.jsm.consumers.info(STREAM_CALLS, durable);
    return info.num_pending + info.num_ack_pending;
  };

  /** A stage of the requests `filterSubject` selects, on the admin connection, under `durable`. */
  const requestStage = (durable: string, filterSubject: string, spec: Omit<StageSpec<"ToolCallRequested">, "bus" | "log" | "durable" | "eventType" | "filterSubject">) =>
    runStage({ bus: t.bus, log: silentLogger(), durable, eventType: "ToolCallRequested", filterSubject, ...spec });

  /** How many DLQ letters were recorded for a subject. */
  const letters = async (subject: string) => {
    const info = await t.bus.jsm.streams.info(STREAM_DLQ);
    let n = 0;
    for (let seq = info.state.first_seq; seq <= info.state.last_seq && seq > 0; seq++) {
      const m = await t.bus.jsm.streams.getMessage(STREAM_DLQ, { seq }).catch(() => null);
      if (m?.header.get("Warden-Dlq-Subject") === subject) n++;
    }
    return n;
  };

  it("terminates poison for good, even on servers that ignore a term reason (regression: nats-server 2.9)", async () => {
    const durable = consumerName("t-poison");
    const seen: string[] = [];
    const stage = await requestStage(durable, stageFilterSubject("ToolCallRequested", "poison"), {
      ackWaitMs: 1_000,
      handle: async (e) => {
        seen.push(e.callId);
        return ACK;
      },
    });
    const bad = newId();
    await t.bus.js.publish(callEventSubject("poison", bad, "ToolCallRequested", "p1"), new TextEncoder().encode("nope"));
    // args nested deep enough to overflow the validator's stack
    const deep = request("poison");
    const deepJson = JSON.stringify({ ...deep, data: { ...deep.data, args: "@" } }).replace('"@"', `${"[".repeat(20_000)}${"]".repeat(20_000)}`);
    await t.bus.js.publish(callEventSubject("poison", deep.callId, "ToolCallRequested", "p1"), new TextEncoder().encode(deepJson));
    const good = request("poison");
    await appendEvent(t.bus, good);
    await eventually(async () => expect(seen).toEqual([good.callId]));
    await eventually(async () => expect(await pending(durable)).toBe(0));
    // past the ack wait nothing comes back
    await new Promise((r) => setTimeout(r, 1_500));
    expect(await pending(durable)).toBe(0);
    // each letter names its code first, as the projector's do
    expect((await deadLetters(t.bus, bad)).join()).toMatch(/^MALFORMED_JSON: malformed JSON/);
    expect((await deadLetters(t.bus, deep.callId)).join()).toMatch(/^TOO_DEEP: JSON nested too deeply/);
    expect(seen).not.toContain(deep.callId);
    await stage.stop();
  });

  it("retries a transient failure with backoff and dead-letters it with a failure hook when retries run out", async () => {
    const durable = consumerName("t-retry");
    let attempts = 0;
    const exhausted: string[] = [];
    const stage = await requestStage(durable, stageFilterSubject("ToolCallRequested", "retry"), {
      maxDeliver: 3,
      backoffMs: [10],
      handle: async () => {
        attempts++;
        return { kind: "retry", reason: "downstream unavailable" };
      },
      onExhausted: async (e, reason) => {
        exhausted.push(`${e.callId}:${reason}`);
      },
    });
    const ev = request("retry");
    await appendEvent(t.bus, ev);
    await eventually(async () => expect(exhausted).toHaveLength(1));
    expect(attempts).toBe(3);
    expect(exhausted[0]).toContain("retries exhausted after 3 deliveries");
    await eventually(async () => expect((await deadLetters(t.bus, ev.callId)).join()).toMatch(/downstream unavailable/));
    await stage.stop();
  });

  it("keeps at most `concurrency` handlers running and finishes them on stop", async () => {
    const durable = consumerName("t-conc");
    let running = 0;
    let maxRunning = 0;
    let done = 0;
    const stage = await requestStage(durable, stageFilterSubject("ToolCallRequested", "conc"), {
      concurrency: 4,
      handle: async () => {
        running++;
        maxRunning = Math.max(maxRunning, running);
        await new Promise((r) => setTimeout(r, 20));
        running--;
        done++;
        return ACK;
      },
    });
    for (let i = 0; i < 30; i++) await appendEvent(t.bus, request("conc"));
    await eventually(async () => expect(done).toBeGreaterThanOrEqual(8));
    await stage.stop();
    expect(running).toBe(0);
    expect(maxRunning).toBeLessThanOrEqual(4);
    expect(maxRunning).toBeGreaterThan(1);
  });

  it("hands every kind of unreadable message on a usable subject to onUndecodable once, then terminates it with one DLQ letter (regression: callers waited for a timeout)", async () => {
    const durable = consumerName("t-undecodable");
    const domain = "undec";
    const seen: { code: UndecodableCode; callId: string; principal: string | undefined; event: boolean }[] = [];
    const handled: string[] = [];
    const stage = await requestStage(durable, stageFilterSubject("ToolCallRequested", domain), {
      ackWaitMs: 1_000,
      maxBytes: 150_000,
      handle: async (e) => {
        handled.push(e.callId);
        return ACK;
      },
      onUndecodable: async (message, ctx) => {
        seen.push({ code: message.code, callId: ctx.subject.callId, principal: ctx.subject.principal, event: message.event !== undefined });
        return ACK;
      },
    });
    const raw = async (callId: string, data: Uint8Array, principal = "p1") => {
      const subject = callEventSubject(domain, callId, "ToolCallRequested", principal);
      await t.bus.js.publish(subject, data);
      return subject;
    };
    const text = (s: string) => new TextEncoder().encode(s);
    const valid = request(domain);
    const cases: Record<string, { data: Uint8Array; code: UndecodableCode; principal?: string }> = {
      notJson: { data: text("{not json"), code: "MALFORMED_JSON" },
      notUtf8: { data: new Uint8Array([...text(JSON.stringify({ ...valid, tool: "AB" })).map((b) => (b === 0x41 ? 0xff : b))]), code: "NOT_UTF8" },
      deep: { data: text(JSON.stringify({ ...valid, data: { ...valid.data, args: "@" } }).replace('"@"', `${"[".repeat(50_000)}${"]".repeat(50_000)}`)), code: "TOO_DEEP" },
      large: { data: encodeJson({ ...valid, data: { ...valid.data, args: { big: "x".repeat(160_000) } } }), code: "TOO_LARGE" },
      schemaInvalid: { data: encodeJson({ v: 1, type: "ToolCallRequested" }), code: "SCHEMA_INVALID" },
      otherCall: { data: encodeJson(request(domain)), code: "SUBJECT_MISMATCH" },
      otherPrincipal: { data: encodeJson(valid), code: "SUBJECT_MISMATCH", principal: "p2" },
    };
    const subjects = new Map<string, string>();
    for (const [name, c] of Object.entries(cases)) {
      const callId = name === "otherPrincipal" ? valid.callId : newId();
      subjects.set(name, await raw(callId, c.data, c.principal));
    }
    await eventually(async () => expect(seen).toHaveLength(Object.keys(cases).length));
    expect(seen.map((s) => s.code).sort()).toEqual(Object.values(cases).map((c) => c.code).sort());
    expect(seen.find((s) => s.principal === "p2")).toMatchObject({ callId: valid.callId, code: "SUBJECT_MISMATCH", event: true });
    await eventually(async () => expect(await pending(durable)).toBe(0));
    // past the ack wait nothing comes back: each was terminated once
    await new Promise((r) => setTimeout(r, 1_500));
    expect(seen).toHaveLength(Object.keys(cases).length);
    expect(handled).toEqual([]);
    for (const subject of subjects.values()) expect(await letters(subject)).toBe(1);
    await stage.stop();
  });

  it("retries an answer to an unreadable message that failed, and records the message in the DLQ once when it never succeeds", async () => {
    const durable = consumerName("t-undecodable-retry");
    let attempts = 0;
    const stage = await requestStage(durable, stageFilterSubject("ToolCallRequested", "undecretry"), {
      maxDeliver: 3,
      backoffMs: [10],
      handle: async () => ACK,
      onUndecodable: async () => {
        attempts++;
        return { kind: "retry", reason: "stream unavailable" };
      },
    });
    const subject = callEventSubject("undecretry", newId(), "ToolCallRequested", "p1");
    await t.bus.js.publish(subject, new TextEncoder().encode("{not json"));
    await eventually(async () => expect(await letters(subject)).toBe(1));
    expect(attempts).toBe(3);
    expect((await deadLetters(t.bus, subject)).join()).toMatch(/^MALFORMED_JSON: malformed JSON.*not answered after 3 deliveries: stream unavailable/);
    await stage.stop();
  });

  it("asks for messages with a short expiry and idle heartbeats (regression: 30 s pulls stalled calls 35-45 s after a leader loss)", async () => {
    const durable = consumerName("t-pull");
    const pulls: { expires?: number; idle_heartbeat?: number; batch?: number }[] = [];
    const spy = t.bus.nc.subscribe(`$JS.API.CONSUMER.MSG.NEXT.${STREAM_CALLS}.${durable}`, {
      callback: (_err, m) => {
        const d = decodeJson(m.data);
        if (d.ok) pulls.push(d.value as (typeof pulls)[number]);
      },
    });
    const stage = await requestStage(durable, stageFilterSubject("ToolCallRequested", "pull"), {
      concurrency: 8,
      handle: async () => ACK,
    });
    await eventually(() => expect(pulls.length).toBeGreaterThan(0));
    expect(pulls[0]).toMatchObject({ batch: 8, expires: 5_000_000_000, idle_heartbeat: 1_000_000_000 });
    await stage.stop();
    spy.unsubscribe();
  });

  it("calls a message a possible replay when it was stored before its durable was made, or is delivered again; a first delivery of a newer one never, however old its event", async () => {
    const durable = consumerName("t-replay");
    const filter = stageFilterSubject("ToolCallRequested", "replay");
    // written before any durable: a recreated durable delivers it from the stream's start
    const before = request("replay");
    await appendEvent(t.bus, before);
    const seen = new Map<string, boolean[]>();
    const record = (callId: string, replay: boolean) => seen.set(callId, [...(seen.get(callId) ?? []), replay]);
    let failOnce: string | undefined;
    const stage = await requestStage(durable, filter, {
      backoffMs: [50],
      handle: async (e, ctx) => {
        record(e.callId, ctx.possibleReplay);
        if (e.callId === failOnce) {
          failOnce = undefined;
          throw new Error("transient");
        }
        return ACK;
      },
    });
    try {
      await eventually(() => expect(seen.get(before.callId)).toEqual([true]));
      // an hour-old event, stored after the durable exists: new to this stage
      const old = { ...request("replay"), ts: new Date(Date.now() - 3_600_000).toISOString() };
      await appendEvent(t.bus, old);
      await eventually(() => expect(seen.get(old.callId)).toEqual([false]));
      const retried = request("replay");
      failOnce = retried.callId;
      await appendEvent(t.bus, retried);
      await eventually(() => expect(seen.get(retried.callId)).toEqual([false, true]));
    } finally {
      await stage.stop();
    }
  });

  it("pulls again within seconds when the pull it waits on is lost (its durable deleted and recreated under it)", async () => {
    const durable = consumerName("t-lost-pull");
    const filter = stageFilterSubject("ToolCallRequested", "lostpull");
    const handled: string[] = [];
    const stage = await requestStage(durable, filter, {
      handle: async (e) => {
        handled.push(e.callId);
        return ACK;
      },
    });
    const first = request("lostpull");
    await appendEvent(t.bus, first);
    await eventually(() => expect(handled).toContain(first.callId));
    // as a stream leader's loss does, this drops the pull request the runner waits on
    await t.bus.jsm.consumers.delete(STREAM_CALLS, durable);
    await ensureStageConsumer(t.bus, durable, filter, { maxDeliver: 5, ackWaitMs: 30_000, maxAckPending: 256 });
    const second = request("lostpull");
    await appendEvent(t.bus, second);
    const t0 = Date.now();
    await eventually(() => expect(handled).toContain(second.callId), 10_000);
    expect(Date.now() - t0).toBeLessThan(10_000);
    await stage.stop();
  });

  it("holds no more delivered messages than its concurrency in flight plus one batch of that size, however long the backlog", async () => {
    const durable = consumerName("t-bounded");
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let running = 0;
    const stage = await requestStage(durable, stageFilterSubject("ToolCallRequested", "bounded"), {
      concurrency: 2,
      handle: async () => {
        running++;
        await gate;
        return ACK;
      },
    });
    for (let i = 0; i < 40; i++) await appendEvent(t.bus, request("bounded"));
    await eventually(() => expect(running).toBe(2));
    // give the client every chance to over-fetch, then look at what the server has handed out
    await new Promise((r) => setTimeout(r, 500));
    const info = await t.bus.jsm.consumers.info(STREAM_CALLS, durable);
    expect(info.num_ack_pending).toBeLessThanOrEqual(2 * 2 + 1);
    expect(info.num_pending).toBeGreaterThan(30);
    release();
    await eventually(async () => expect(await pending(durable)).toBe(0));
    await stage.stop();
  });
});
