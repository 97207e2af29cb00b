import { afterAll, describe, expect, it } from "vitest";
import { useTestNats } from "@warden/testing";
import { createAgentClient } from "@warden/sdk";
import { startOtlpReceiver } from "../support/otlp-receiver.js";
import { runServiceMain, startRegistryWithKbSearch, type ServiceExit } from "../support/service-process.js";

/** The policy process, told once it says it started. */
function runPolicy(env: NodeJS.ProcessEnv, onStarted: (stop: () => void) => void): Promise<ServiceExit> {
  let started = false;
  return runServiceMain("policy", env, (out, stop) => {
    if (!started && out.includes('"msg":"service started"')) {
      started = true;
      onStarted(stop);
    }
  });
}

describe("a service process traces with OTEL_EXPORTER_OTLP_ENDPOINT", () => {
  const t = useTestNats(async (nats) => ({ receiver: await startOtlpReceiver(), registry: await startRegistryWithKbSearch(nats) }));
  afterAll(async () => {
    await t.registry.stop();
    await t.receiver.close();
  });

  it("policy: exports its stage's span as service warden-policy, the last ones on SIGTERM", async () => {
    const env = { NATS_URL: t.nats.url, NATS_CREDS: await t.nats.credsOf({ kind: "service", name: "policy", role: "policy" }), LOG_LEVEL: "info", OTEL_EXPORTER_OTLP_ENDPOINT: `${t.receiver.url}/` };
    let callId = "";
    const exit = await runPolicy(env, (stop) => {
      void (async () => {
        const agent = createAgentClient({ bus: await t.nats.connectAs({ kind: "agent", name: "bot" }), principal: "bot", timeoutMs: 5_000 });
        callId = (await agent.call("kb.search", { q: "x" }, { mode: "llm" })).callId;
        await agent.close();
        // no wait for the batch: the drain on SIGTERM exports what is left
        stop();
      })();
    });
    expect({ code: exit.code, stderr: exit.stderr }).toEqual({ code: 0, stderr: "" });
    expect(exit.stdout).toContain('"msg":"tracing to otlp"');
    const span = t.receiver.spans.find((s) => s.name === "stage policy-check" && s.attributes["warden.call_id"] === callId);
    expect(span).toMatchObject({ service: "warden-policy", attributes: { "warden.stage": "policy-check", "warden.event_type": "ToolArgsValidated", "warden.outcome": "ack" } });
  });

  it("policy: a bad endpoint exits 1 naming the variable", async () => {
    const exit = await runPolicy({ NATS_URL: t.nats.url, OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318" }, () => undefined);
    expect(exit.code).toBe(1);
    expect(exit.stderr).toMatch(/^warden-policy: invalid environment variable OTEL_EXPORTER_OTLP_ENDPOINT="collector:4318"/);
  });
});
