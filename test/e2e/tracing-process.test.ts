import { spawn } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "@warden/bus";
import { startRegistryService, type RegistryService } from "@warden/registry";
import { createAgentClient, createRegistryClient } from "@warden/sdk";
import { startTestNats, type TestNats } from "@warden/testing";
import { startOtlpReceiver, type OtlpReceiver } from "../support/otlp-receiver.js";

const ROOT = join(import.meta.dirname, "../..");

function runPolicy(env: NodeJS.ProcessEnv, onStarted: (stop: () => void) => void): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [join(ROOT, "services/policy/dist/main.js")], { env: { PATH: process.env["PATH"] ?? "", ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  let started = false;
  child.stdout.on("data", (c: Buffer) => {
    stdout += c.toString();
    if (!started && stdout.includes('"msg":"service started"')) {
      started = true;
      onStarted(() => child.kill("SIGTERM"));
    }
  });
  child.stderr.on("data", (c: Buffer) => void (stderr += c.toString()));
  return new Promise((resolve) => child.once("exit", (code) => resolve({ code, stdout, stderr })));
}

describe("a service process traces with OTEL_EXPORTER_OTLP_ENDPOINT", () => {
  let nats: TestNats;
  let registry: RegistryService;
  let receiver: OtlpReceiver;
  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    nats = await startTestNats();
    const admin = await nats.bus("setup");
    registry = await startRegistryService({ bus: await nats.connectAs({ kind: "service", name: "registry-0", role: "registry" }), log: silentLogger() });
    const descriptor = { name: "kb.search", version: "1.0.0", title: "Search", description: "Use when the support desk needs it.", inputSchema: { type: "object" }, grade: "read" as const, idempotent: true };
    expect((await createRegistryClient(admin).register([descriptor])).ok).toBe(true);
  });
  afterAll(async () => {
    await registry.stop();
    await nats.stop();
    await receiver.close();
  });

  it("policy: exports its stage's span as service warden-policy, the last ones on SIGTERM", async () => {
    const env = { NATS_URL: nats.url, NATS_CREDS: await nats.credsOf({ kind: "service", name: "policy", role: "policy" }), LOG_LEVEL: "info", OTEL_EXPORTER_OTLP_ENDPOINT: `${receiver.url}/` };
    let callId = "";
    const exit = await runPolicy(env, (stop) => {
      void (async () => {
        const agent = createAgentClient({ bus: await nats.connectAs({ kind: "agent", name: "bot" }), principal: "bot", timeoutMs: 5_000 });
        callId = (await agent.call("kb.search", { q: "x" }, { mode: "llm" })).callId;
        await agent.close();
        // no wait for the batch: the drain on SIGTERM exports what is left
        stop();
      })();
    });
    expect({ code: exit.code, stderr: exit.stderr }).toEqual({ code: 0, stderr: "" });
    expect(exit.stdout).toContain('"msg":"tracing to otlp"');
    const span = receiver.spans.find((s) => s.name === "stage policy-check" && s.attributes["warden.call_id"] === callId);
    expect(span).toMatchObject({ service: "warden-policy", attributes: { "warden.stage": "policy-check", "warden.event_type": "ToolArgsValidated", "warden.outcome": "ack" } });
  });

  it("policy: a bad endpoint exits 1 naming the variable", async () => {
    const exit = await runPolicy({ NATS_URL: nats.url, OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318" }, () => undefined);
    expect(exit.code).toBe(1);
    expect(exit.stderr).toMatch(/^warden-policy: invalid environment variable OTEL_EXPORTER_OTLP_ENDPOINT="collector:4318"/);
  });
});
