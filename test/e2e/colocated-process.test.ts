import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgentClient } from "@warden/sdk";
import { eventually, startTestNats, type TestNats } from "@warden/testing";
import { startOtlpReceiver, type OtlpReceiver } from "../support/otlp-receiver.js";
import { runProcessMain, startRegistryWithKbSearch, type ServiceExit } from "../support/service-process.js";

const COLOCATED = "cli/dist/colocated-main.js";

/**
 * The registry and policy stages sharing one process (`cli/dist/colocated-main.js`) are a
 * service process like any other: health, metrics and tracing from the same variables.
 */
describe("the colocated registry+policy process", () => {
  let nats: TestNats;
  let receiver: OtlpReceiver;
  let creds: NodeJS.ProcessEnv;
  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    nats = await startTestNats();
    // registered by a registry of its own, stopped so that only the process's registry stage runs
    await (await startRegistryWithKbSearch(nats)).stop();
    creds = {
      WARDEN_REGISTRY_NATS_CREDS: await nats.credsOf({ kind: "service", name: "registry", role: "registry" }),
      WARDEN_POLICY_NATS_CREDS: await nats.credsOf({ kind: "service", name: "policy", role: "policy" }),
    };
  });
  afterAll(async () => {
    await nats.stop();
    await receiver.close();
  });

  it("serves /readyz and /metrics for both stages, exports their spans as one trace, and drains on SIGTERM", async () => {
    const env = { NATS_URL: nats.url, ...creds, LOG_LEVEL: "info", WARDEN_HEALTH_PORT: "0", OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url };
    let signalled = false;
    let callId = "";
    const seen: { ready?: number; health?: number; metrics?: string } = {};
    const exit: ServiceExit = await runProcessMain(COLOCATED, ["registry", "policy"], env, (out, stop) => {
      const m = /"healthPort":(\d+)[^\n]*"msg":"service started"/.exec(out);
      if (m === null || signalled) return;
      signalled = true;
      const url = (path: string) => `http://127.0.0.1:${m[1]}${path}`;
      void (async () => {
        seen.health = (await fetch(url("/healthz"))).status;
        seen.ready = (await fetch(url("/readyz"))).status;
        const agent = createAgentClient({ bus: await nats.connectAs({ kind: "agent", name: "bot" }), principal: "bot", timeoutMs: 5_000 });
        callId = (await agent.call("kb.search", { q: "x" }, { mode: "llm" })).callId;
        await agent.close();
        await eventually(async () => {
          const text = await (await fetch(url("/metrics"))).text();
          expect(text).toMatch(/warden_stage_messages_total\{stage="registry-validate",event_type="ToolCallRequested",tool="kb.search",outcome="ack",service="colocated"\} 1/);
          expect(text).toMatch(/warden_stage_messages_total\{stage="policy-check",event_type="ToolArgsValidated",tool="kb.search",outcome="ack",service="colocated"\} 1/);
          seen.metrics = text;
        });
        // no wait for the batch: the drain on SIGTERM exports what is left
        stop();
      })();
    });
    expect({ code: exit.code, started: signalled, stderr: exit.stderr }).toEqual({ code: 0, started: true, stderr: "" });
    expect(exit.stdout).toContain('"msg":"tracing to otlp"');
    expect(exit.stdout).toMatch(/"stages":\["registry","policy"\]/);
    expect([seen.health, seen.ready]).toEqual([200, 200]);
    expect(seen.metrics).toMatch(/warden_consumer_pending_messages\{durable="registry-validate",service="colocated"\} \d+/);
    expect(seen.metrics).toMatch(/warden_consumer_pending_messages\{durable="policy-check",service="colocated"\} \d+/);

    const spans = receiver.spans.filter((s) => s.attributes["warden.call_id"] === callId);
    const registry = spans.find((s) => s.name === "stage registry-validate");
    const policy = spans.find((s) => s.name === "stage policy-check");
    expect(registry).toMatchObject({ service: "warden-colocated", attributes: { "warden.stage": "registry-validate", "warden.outcome": "ack" } });
    expect(policy).toMatchObject({ service: "warden-colocated", traceId: registry!.traceId, parentSpanId: registry!.spanId });
  });

  it("refuses a stage that cannot share the process, and a bad setting, in one line naming it", async () => {
    const refused = await runProcessMain(COLOCATED, ["registry", "approver"], { NATS_URL: nats.url, ...creds });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^warden-colocated: approver cannot share a process; these can: registry, policy\n$/);
    const badPort = await runProcessMain(COLOCATED, [], { NATS_URL: nats.url, ...creds, WARDEN_HEALTH_PORT: "http" });
    expect(badPort.code).toBe(1);
    expect(badPort.stderr).toMatch(/^warden-colocated: invalid environment variable WARDEN_HEALTH_PORT="http"/);
    const badEndpoint = await runProcessMain(COLOCATED, [], { NATS_URL: nats.url, ...creds, OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318" });
    expect(badEndpoint.code).toBe(1);
    expect(badEndpoint.stderr).toMatch(/^warden-colocated: invalid environment variable OTEL_EXPORTER_OTLP_ENDPOINT="collector:4318"/);
  });
});
