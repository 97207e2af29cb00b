import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger, type Bus } from "@warden/bus";
import { eventually, startTestNats, syntheticCall, type TestNats } from "@warden/testing";
import { startHealthServer, type HealthServer } from "./health-server.js";
import { createServiceMetrics, type ServiceMetrics } from "./service-metrics.js";

describe("health and metrics over HTTP", () => {
  let nats: TestNats;
  let bus: Bus;
  let metrics: ServiceMetrics;
  let health: HealthServer;
  const get = async (path: string) => {
    const res = await fetch(`http://127.0.0.1:${health.port}${path}`);
    return { status: res.status, text: await res.text() };
  };

  beforeAll(async () => {
    nats = await startTestNats();
    bus = await nats.connectAs({ kind: "service", name: "policy", role: "policy" });
    metrics = createServiceMetrics({ service: "policy", bus, log: silentLogger() });
    health = await startHealthServer({ bus, log: silentLogger(), metrics, port: 0 });
  });
  afterAll(async () => {
    await health?.stop();
    await bus?.close();
    await nats?.stop();
  });

  it("is live at once, ready only once started, and unready while stopping", async () => {
    expect(await get("/healthz")).toMatchObject({ status: 200 });
    expect(await get("/readyz")).toEqual({ status: 503, text: JSON.stringify({ ok: false, reason: "starting" }) });
    health.markStarted();
    expect(await get("/readyz")).toMatchObject({ status: 200 });
    expect((await get("/nope")).status).toBe(404);
  });

  it("counts what the process handled and appended, by stage, tool, outcome and decision, and reads the DLQ's size", async () => {
    const events = syntheticCall({ callId: "m1", outcome: "succeeded" });
    const checked = events.find((e) => e.type === "ToolPolicyChecked")!;
    const finished = events.find((e) => e.type === "ToolCallFinished")!;
    metrics.observer.stageHandled?.({ stage: "policy-decide", eventType: "ToolArgsValidated", tool: checked.tool, outcome: "ack", seconds: 0.002 });
    metrics.observer.stageHandled?.({ stage: "policy-decide", eventType: "ToolArgsValidated", tool: checked.tool, outcome: "retry", seconds: 0.2 });
    metrics.observer.appended?.(checked, "written");
    metrics.observer.appended?.(finished, "written");
    metrics.observer.appended?.(finished, "already_written");
    metrics.observer.deadLettered?.({ stage: "policy-decide", reason: "SCHEMA_INVALID: x" });
    const { status, text } = await get("/metrics");
    expect(status).toBe(200);
    expect(text).toContain(`warden_stage_messages_total{stage="policy-decide",event_type="ToolArgsValidated",tool="${checked.tool}",outcome="ack",service="policy"} 1`);
    expect(text).toContain(`warden_stage_messages_total{stage="policy-decide",event_type="ToolArgsValidated",tool="${checked.tool}",outcome="retry",service="policy"} 1`);
    expect(text).toContain(`warden_stage_handle_seconds_bucket{le="0.0025",service="policy",stage="policy-decide"} 1`);
    expect(text).toContain(`warden_events_written_total{type="ToolPolicyChecked",tool="${checked.tool}",result="allow",service="policy"} 1`);
    expect(text).toContain(`warden_events_written_total{type="ToolCallFinished",tool="${finished.tool}",result="ok",service="policy"} 1`);
    expect(text).toContain(`warden_events_already_written_total{type="ToolCallFinished",service="policy"} 1`);
    expect(text).toContain(`warden_stage_dead_letters_total{stage="policy-decide",service="policy"} 1`);
    expect(text).toMatch(/warden_dlq_messages\{service="policy"\} \d+/);
    expect(text).toContain("process_cpu_seconds_total");
  });

  it("goes unready while NATS is unreachable and ready again once it is back", async () => {
    health.markStarted();
    const outage = nats.crashAndRestart(3_000);
    await eventually(async () => expect(await get("/readyz")).toEqual({ status: 503, text: JSON.stringify({ ok: false, reason: "NATS is unreachable (reconnecting)" }) }), 5_000);
    expect((await get("/healthz")).status).toBe(200);
    await outage;
    await eventually(async () => expect((await get("/readyz")).status).toBe(200), 15_000);
    health.markStopping();
    expect(await get("/readyz")).toEqual({ status: 503, text: JSON.stringify({ ok: false, reason: "stopping" }) });
  });
});
