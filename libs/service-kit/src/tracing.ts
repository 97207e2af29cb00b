import { context, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor, TracerProvider, type SpanExporter } from "@opentelemetry/sdk-trace";
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from "@opentelemetry/semantic-conventions";
import { parseEnv } from "@warden/bus";
import { enableTracing } from "@warden/contracts/events";
import { z } from "zod";

/** The variables that turn tracing on (the OpenTelemetry SDK's own names). */
export const TracingConfigSchema = z.object({
  /** Base URL of an OTLP/HTTP receiver (a collector); spans go to `<it>/v1/traces`. Unset: no tracing. */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url({ protocol: /^https?$/ }).optional(),
  /** The `service.name` of this process's spans. @default the process's name (`warden-<name>`) */
  OTEL_SERVICE_NAME: z.string().min(1).max(200).optional(),
});
export type TracingConfig = z.infer<typeof TracingConfigSchema>;

/** Reads {@link TracingConfigSchema} from env. @throws ConfigError naming a bad variable */
export function loadTracingConfig(env: NodeJS.ProcessEnv): TracingConfig {
  return parseEnv(TracingConfigSchema, env);
}

export interface TracingOptions {
  /** `service.name` of the spans. */
  readonly serviceName: string;
  readonly serviceVersion?: string;
  /** OTLP/HTTP base URL (`OTEL_EXPORTER_OTLP_ENDPOINT`): spans are posted to `<endpoint>/v1/traces` as OTLP JSON. */
  readonly endpoint?: string;
  /** Another exporter instead (tests); `endpoint` is then ignored. */
  readonly exporter?: SpanExporter;
}

/** A started tracer provider. */
export interface Tracing {
  /** Exports every span ended so far. */
  flush(): Promise<void>;
  /**
   * Turns tracing off again for this process and exports what is left, waiting at most
   * {@link TRACING_STOP_MS} for an unreachable receiver (a drain must not outlast a container's grace).
   */
  stop(): Promise<void>;
}

/** How long stopping waits for the last export. */
export const TRACING_STOP_MS = 5_000;

/** The OTLP/HTTP traces URL of a base endpoint, as the OpenTelemetry SDKs derive it. */
export function tracesUrl(endpoint: string): string {
  return `${endpoint.replace(/\/+$/, "")}/v1/traces`;
}

/**
 * Starts this process's tracer provider and registers it globally (with an AsyncLocalStorage
 * context manager, so a stage's span stays active across its awaits), then turns Warden's tracing
 * on (`enableTracing`): stages open spans, events carry their context. One per process: every
 * service started in it (or a test's in-process services) shares it. Spans are batched and
 * posted as OTLP JSON over HTTP.
 */
export function startTracing(o: TracingOptions): Tracing {
  const exporter = o.exporter ?? new OTLPTraceExporter({ url: tracesUrl(o.endpoint ?? "http://localhost:4318"), timeoutMillis: TRACING_STOP_MS });
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: o.serviceName, ...(o.serviceVersion === undefined ? {} : { [ATTR_SERVICE_VERSION]: o.serviceVersion }) }),
    spanProcessors: [new BatchSpanProcessor({ exporter })],
  });
  const already = () => new Error("a tracer provider or context manager is registered in this process already");
  // undo only what this call registered: a refused second start leaves the first one working
  if (!context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())) throw already();
  if (!trace.setGlobalTracerProvider(provider)) {
    context.disable();
    throw already();
  }
  const disable = enableTracing();
  let stopped: Promise<void> | undefined;
  return {
    flush: () => provider.forceFlush(),
    stop() {
      stopped ??= (async () => {
        disable();
        let timer: NodeJS.Timeout | undefined;
        try {
          const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, TRACING_STOP_MS)));
          await Promise.race([provider.shutdown(), late]);
        } finally {
          clearTimeout(timer);
          trace.disable();
          context.disable();
        }
      })();
      return stopped;
    },
  };
}
