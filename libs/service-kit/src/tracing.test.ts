import { trace } from "@opentelemetry/api";
import { InMemorySpanExporter } from "@opentelemetry/sdk-trace";
import { describe, expect, it } from "vitest";
import { ConfigError } from "@warden/bus";
import { activeTraceparent, tracingEnabled } from "@warden/contracts/events";
import { loadTracingConfig, startTracing, tracesUrl } from "./tracing.js";

describe("tracing", () => {
  it("is off unless OTEL_EXPORTER_OTLP_ENDPOINT is set, and refuses an endpoint that is not an http(s) URL", () => {
    expect(loadTracingConfig({})).toEqual({});
    expect(loadTracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "", OTEL_SERVICE_NAME: "" })).toEqual({});
    expect(loadTracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://otel:4318", OTEL_SERVICE_NAME: "policy-eu" })).toEqual({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://otel:4318", OTEL_SERVICE_NAME: "policy-eu" });
    expect(() => loadTracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "otel:4318" })).toThrow(ConfigError);
    expect(() => loadTracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "grpc://otel:4317" })).toThrow(/OTEL_EXPORTER_OTLP_ENDPOINT/);
    expect(tracesUrl("http://otel:4318")).toBe("http://otel:4318/v1/traces");
    expect(tracesUrl("http://otel:4318/base/")).toBe("http://otel:4318/base/v1/traces");
  });

  it("turns Warden's tracing on while a provider runs, one per process, and off again when it stops", async () => {
    expect(tracingEnabled()).toBe(false);
    const exporter = new InMemorySpanExporter();
    const tracing = startTracing({ serviceName: "warden-test", exporter });
    try {
      expect(tracingEnabled()).toBe(true);
      expect(() => startTracing({ serviceName: "again", exporter })).toThrow(/registered/);
      // the context manager keeps a span active across awaits, so what a stage writes carries it
      const tp = await trace.getTracer("t").startActiveSpan("outer", async (span) => {
        await new Promise((resolve) => setTimeout(resolve, 1));
        const seen = activeTraceparent();
        span.end();
        return seen;
      });
      expect(tp).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
      await tracing.flush();
      expect(exporter.getFinishedSpans().map((s) => [s.name, s.resource.attributes["service.name"]])).toEqual([["outer", "warden-test"]]);
    } finally {
      await tracing.stop();
    }
    expect(tracingEnabled()).toBe(false);
    expect(activeTraceparent()).toBeUndefined();
    // stopped, the process may start one again (a test after another)
    const again = startTracing({ serviceName: "warden-test", exporter: new InMemorySpanExporter() });
    await again.stop();
  });
});
