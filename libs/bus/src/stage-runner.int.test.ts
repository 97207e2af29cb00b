import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callEventSubject, consumerName, newId, stageFilterSubject, STREAM_CALLS, type ToolCallRequested } from "@warden/contracts";
import { startTestNats, type TestNats } from "../../../test/support/nats.js";
import { eventually } from "../../../test/support/eventually.js";
import { deadLetters } from "../../../test/support/events.js";
import { appendEvent } from "./append.js";
import type { Bus } from "./bus.js";
import { silentLogger } from "./logger.js";
import { ACK, runStage } from "./stage-runner.js";

function request(domain: string): ToolCallRequested {
  return {
    v: 1,
    type: "ToolCallRequested",
    eventId: newId(),
    callId: newId(),
    domain,
    tool: `${domain}.x`,
    principal: "p1",
    mode: "plan",
    ts: new Date().toISOString(),
    causationId: null,
    correlationId: "r1",
    data: { args: {}, scope: null, flags: {} },
  };
}

describe("runStage", () => {
  let nats: TestNats;
  let bus: Bus;
  beforeAll(async () => {
    nats = await startTestNats();
    bus = await nats.bus();
  });
  afterAll(async () => nats.stop());

  const pending = async (durable: string) => {
    const info = await bus.jsm.consumers.info(STREAM_CALLS, durable);
    return info.num_pending + info.num_ack_pending;
  };

  it("terminates poison for good, even on servers that ignore a term reason (regression: nats-server 2.9)", async () => {
    const durable = consumerName("t-poison");
    const seen: string[] = [];
    const stage = await runStage({
      bus,
      log: silentLogger(),
      durable,
      eventType: "ToolCallRequested",
      filterSubject: stageFilterSubject("ToolCallRequested", "poison"),
      ackWaitMs: 1_000,
      handle: async (e) => {
        seen.push(e.callId);
        return ACK;
      },
    });
    const bad = newId();
    await bus.js.publish(callEventSubject("poison", bad, "ToolCallRequested", "p1"), new TextEncoder().encode("nope"));
    // args nested deep enough to overflow the validator's stack
    const deep = request("poison");
    const deepJson = JSON.stringify({ ...deep, data: { ...deep.data, args: "@" } }).replace('"@"', `${"[".repeat(20_000)}${"]".repeat(20_000)}`);
    await bus.js.publish(callEventSubject("poison", deep.callId, "ToolCallRequested", "p1"), new TextEncoder().encode(deepJson));
    const good = request("poison");
    await appendEvent(bus, good);
    await eventually(async () => expect(seen).toEqual([good.callId]));
    await eventually(async () => expect(await pending(durable)).toBe(0));
    // past the ack wait nothing comes back
    await new Promise((r) => setTimeout(r, 1_500));
    expect(await pending(durable)).toBe(0);
    expect((await deadLetters(bus, bad)).join()).toMatch(/malformed JSON/);
    expect((await deadLetters(bus, deep.callId)).join()).toMatch(/nested too deeply|schema-invalid/);
    expect(seen).not.toContain(deep.callId);
    await stage.stop();
  });

  it("retries a transient failure with backoff and dead-letters it with a failure hook when retries run out", async () => {
    const durable = consumerName("t-retry");
    let attempts = 0;
    const exhausted: string[] = [];
    const stage = await runStage({
      bus,
      log: silentLogger(),
      durable,
      eventType: "ToolCallRequested",
      filterSubject: stageFilterSubject("ToolCallRequested", "retry"),
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
    await appendEvent(bus, ev);
    await eventually(async () => expect(exhausted).toHaveLength(1));
    expect(attempts).toBe(3);
    expect(exhausted[0]).toContain("retries exhausted after 3 deliveries");
    await eventually(async () => expect((await deadLetters(bus, ev.callId)).join()).toMatch(/downstream unavailable/));
    await stage.stop();
  });

  it("keeps at most `concurrency` handlers running and finishes them on stop", async () => {
    const durable = consumerName("t-conc");
    let running = 0;
    let maxRunning = 0;
    let done = 0;
    const stage = await runStage({
      bus,
      log: silentLogger(),
      durable,
      eventType: "ToolCallRequested",
      filterSubject: stageFilterSubject("ToolCallRequested", "conc"),
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
    for (let i = 0; i < 30; i++) await appendEvent(bus, request("conc"));
    await eventually(async () => expect(done).toBeGreaterThanOrEqual(8));
    await stage.stop();
    expect(running).toBe(0);
    expect(maxRunning).toBeLessThanOrEqual(4);
    expect(maxRunning).toBeGreaterThan(1);
  });
});
