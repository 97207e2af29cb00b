import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createAgentClient, type AgentClient } from "@warden/sdk";
import { type Bus } from "@warden/bus";
import { defineTool, readArtifact } from "@warden/executor";
import { newId } from "@warden/contracts/events";
import { callEventSubject, STREAM_CALLS } from "@warden/contracts/subjects";
import { sha256Hex } from "@warden/contracts/json";
import { callEvents, deadLetters, eventTypes, eventually } from "@warden/testing";
import { startTestWarden, type TestWarden } from "../support/warden.js";

/** A domain whose handler counts how often each call really ran. */
function countingDomain(runs: Map<string, number>) {
  return [
    defineTool({
      name: "count.tick",
      version: "1.0.0",
      title: "Tick",
      description: "Use in tests: records that it ran for this call and returns the call id.",
      grade: "read",
      input: z.object({ i: z.int() }),
      handler: async (_args, ctx) => {
        runs.set(ctx.callId, (runs.get(ctx.callId) ?? 0) + 1);
        await new Promise((r) => setTimeout(r, 2));
        return { callId: ctx.callId };
      },
    }),
    defineTool({
      name: "count.export",
      version: "1.0.0",
      title: "Export",
      description: "Use in tests: a read that needs the crm:export permission scope.",
      grade: "read",
      requiredScopes: ["crm:export"],
      input: z.object({}),
      handler: async () => ({ rows: 3 }),
    }),
  ];
}

describe("robustness: redelivery, competing executors, poison messages, big outputs", () => {
  let w: TestWarden;
  let bot: AgentClient;
  let botBus: Bus;
  const runs = new Map<string, number>();
  let executors: { stop(): Promise<void> }[] = [];
  const startCountExecutors = async () => {
    const tools = countingDomain(runs);
    // two copies of the count domain's executor, each connected as that domain's executor identity
    const start = (executorId: string) => w.startExecutor("count", tools, { connectionName: executorId, executorId });
    executors = [await start("exec-a"), await start("exec-b")];
  };
  beforeAll(async () => {
    w = await startTestWarden({
      demo: true,
      policy: {
        version: "e2e-robust",
        principals: { exporter: { kind: "agent", scopes: ["crm:export"] }, "support-bot": { kind: "agent" } },
      },
    });
    await startCountExecutors();
    botBus = await w.agentBus("support-bot");
    bot = createAgentClient({ bus: botBus, principal: "support-bot" });
  });
  afterAll(async () => w.stop());

  it("never lets two executors of one domain run the same call", async () => {
    const results = await Promise.all(Array.from({ length: 200 }, (_, i) => bot.call("count.tick", { i }, { mode: "llm" })));
    expect(results.every((r) => r.ok)).toBe(true);
    expect(results.map((r) => runs.get(r.callId))).toEqual(results.map(() => 1));
    const executors = new Set<string>();
    for (const r of results.slice(0, 50)) {
      const started = (await callEvents(w.bus, r.callId)).find((e) => e.type === "ToolCallStarted");
      if (started?.type === "ToolCallStarted") executors.add(started.data.executorId);
    }
    expect(executors.size).toBeGreaterThanOrEqual(1);
  });

  it("applies the principal-scope gate: a caller without the scope is refused, one with it runs", async () => {
    const refused = await bot.call("count.export", {}, { mode: "llm" });
    expect(refused).toMatchObject({ ok: false, error: { code: "POLICY_DENIED" } });
    expect(refused.error?.message).toContain("crm:export");
    const exporter = await w.agent("exporter");
    expect(await exporter.call("count.export", {}, { mode: "llm" })).toMatchObject({ ok: true });
  });

  it("stores an oversize output as an artifact with a valid JSON preview and its sha256", async () => {
    const r = await bot.call("demo.big", {}, { mode: "llm" });
    expect(r).toMatchObject({ ok: true, status: "succeeded", truncated: true });
    expect(r.artifacts).toHaveLength(1);
    const art = r.artifacts![0]!;
    expect(art.bytes).toBeGreaterThan(900_000);
    const bytes = await readArtifact(w.bus, art.id);
    expect(bytes).toBeDefined();
    expect(sha256Hex(bytes!)).toBe(art.sha256);
    JSON.parse(new TextDecoder().decode(bytes!));
    const finished = (await callEvents(w.bus, r.callId)).find((e) => e.type === "ToolCallFinished");
    expect(JSON.stringify(finished).length).toBeLessThan(64 * 1024);
  });

  it("terminates a malformed event to the DLQ with its reason and keeps the stage running", async () => {
    // an agent may put anything on its own request subject: the stage dead-letters what is not an event
    const callId = newId();
    const subject = callEventSubject("kb", callId, "ToolCallRequested", "support-bot");
    await botBus.js.publish(subject, new TextEncoder().encode("{not json"));
    const otherId = newId();
    await botBus.js.publish(callEventSubject("kb", otherId, "ToolCallRequested", "support-bot"), new TextEncoder().encode(JSON.stringify({ v: 1, type: "ToolCallRequested" })));
    await eventually(async () => {
      expect((await deadLetters(w.bus, callId)).join()).toMatch(/malformed JSON/);
      expect((await deadLetters(w.bus, otherId)).join()).toMatch(/schema-invalid/);
    });
    expect(await bot.call("kb.search", { query: "refund" }, { mode: "llm" })).toMatchObject({ ok: true });
  });

  it("writes each event type at most once per call and runs nothing twice when every stage is redelivered", async () => {
    const before = await Promise.all(Array.from({ length: 20 }, (_, i) => bot.call("count.tick", { i }, { mode: "llm" })));
    const ticket = await bot.call("ticket.submit", { title: "once", body: "once", customerId: "C-once" }, { mode: "plan" });
    expect(ticket.ok).toBe(true);
    const chains = new Map<string, string[]>();
    for (const r of [...before, ticket]) chains.set(r.callId, eventTypes(await callEvents(w.bus, r.callId)));

    // Force redelivery of the whole stream: drop every durable and let the services recreate them.
    await w.stopServices();
    await Promise.all(executors.map((e) => e.stop()));
    const consumers = await w.bus.jsm.consumers.list(STREAM_CALLS).next();
    for (const c of consumers) await w.bus.jsm.consumers.delete(STREAM_CALLS, c.name);
    await w.startServices();
    await startCountExecutors();
    await eventually(async () => {
      const list = await w.bus.jsm.consumers.list(STREAM_CALLS).next();
      expect(list.length).toBeGreaterThanOrEqual(3);
      for (const c of list) {
        const info = await w.bus.jsm.consumers.info(STREAM_CALLS, c.name);
        expect(info.num_pending + info.num_ack_pending).toBe(0);
      }
    }, 30_000);

    for (const r of before) expect(runs.get(r.callId)).toBe(1);
    for (const [callId, types] of chains) {
      const after = eventTypes(await callEvents(w.bus, callId));
      expect(after).toEqual(types);
      expect(new Set(after).size).toBe(after.length);
    }
  });
});
