import { ConfigError, connectBus, createLogger, ensureTopology, observeBus, stopOnSignals, type Bus, type BusConfig, type Logger } from "@warden/bus";
import { heapLimitMiB } from "./heap-bound.js";
import { startHealthServer, type HealthServer } from "./health-server.js";
import { WARDEN_VERSION } from "./service-announcement.js";
import { createServiceMetrics, type ServiceMetrics } from "./service-metrics.js";
import { loadTracingConfig, startTracing, type Tracing, type TracingConfig } from "./tracing.js";

/** A service as main.ts runs it: anything that can be stopped (it drains its consumers). */
export interface StoppableService {
  stop(): Promise<void>;
}

/** An error class whose message alone tells the operator what to fix (printed without a stack). */
export type OperatorErrorClass = abstract new (...args: never[]) => Error;

export interface ServiceProcessSpec<C extends BusConfig, S extends StoppableService> {
  /** Short name: the logger's name, the connection is `warden-<name>`, messages start `warden-<name>:`. */
  readonly name: string;
  /** Reads and checks everything the service needs before it connects (env, files), so a bad value is reported as itself. */
  readonly loadConfig: (env: NodeJS.ProcessEnv) => C | Promise<C>;
  /**
   * Starts the service on a connected bus (topology checked). `metrics` is set when the process
   * serves them (WARDEN_HEALTH_PORT): a service may add its own gauges.
   */
  readonly start: (ctx: { readonly bus: Bus; readonly log: Logger; readonly config: C; readonly metrics?: ServiceMetrics }) => Promise<S>;
  /** What the "service started" log line says about it. */
  readonly describe?: (service: S, config: C) => Record<string, unknown>;
  /** Errors besides ConfigError that are the operator's to fix (a bad manifest, an invalid agents file). */
  readonly operatorErrors?: readonly OperatorErrorClass[];
}

/** How the process ends; the default is this process. */
export interface ProcessIo {
  readonly env: NodeJS.ProcessEnv;
  writeError(text: string): void;
  exit(code: number): never;
}

const THIS_PROCESS: ProcessIo = {
  env: process.env,
  writeError: (text) => void process.stderr.write(text),
  exit: (code) => process.exit(code),
};

/**
 * Every service's main.ts: env → config → logger → tracing (when `OTEL_EXPORTER_OTLP_ENDPOINT`
 * is set) → connect → topology → start → drain on SIGTERM/SIGINT. An operator's error (bad
 * config, a refused manifest) exits 1 with its message alone; anything else exits 1 with its stack.
 */
export async function runServiceProcess<C extends BusConfig, S extends StoppableService>(spec: ServiceProcessSpec<C, S>, io: ProcessIo = THIS_PROCESS): Promise<void> {
  const isOperatorError = (err: unknown) => err instanceof ConfigError || (spec.operatorErrors ?? []).some((c) => err instanceof c);
  const die = (err: unknown): never => {
    io.writeError(`warden-${spec.name}: ${isOperatorError(err) ? (err as Error).message : String((err as Error).stack ?? err)}\n`);
    return io.exit(1);
  };
  let config: C;
  let tracingConfig: TracingConfig;
  try {
    config = await spec.loadConfig(io.env);
    tracingConfig = loadTracingConfig(io.env);
  } catch (err) {
    return die(err);
  }
  const log = createLogger(spec.name, config.LOG_LEVEL);
  let bus: Bus | undefined;
  let health: HealthServer | undefined;
  let tracing: Tracing | undefined;
  try {
    const endpoint = tracingConfig.OTEL_EXPORTER_OTLP_ENDPOINT;
    if (endpoint !== undefined) {
      tracing = startTracing({ serviceName: tracingConfig.OTEL_SERVICE_NAME ?? `warden-${spec.name}`, serviceVersion: WARDEN_VERSION, endpoint });
      log.info({ endpoint }, "tracing to otlp");
    }
    bus = await connectBus(config, `warden-${spec.name}`);
    // before the service starts, so /healthz answers (and /readyz says "starting") while it does
    const metrics = config.WARDEN_HEALTH_PORT === undefined ? undefined : createServiceMetrics({ service: spec.name, bus, log });
    if (metrics !== undefined) {
      observeBus(metrics.observer);
      health = await startHealthServer({ bus, log, metrics, port: config.WARDEN_HEALTH_PORT!, host: config.WARDEN_HEALTH_HOST });
    }
    await ensureTopology(bus);
    const service = await spec.start({ bus, log, config, ...(metrics === undefined ? {} : { metrics }) });
    const served = health;
    const traced = tracing;
    const draining: StoppableService = {
      async stop() {
        served?.markStopping();
        await service.stop();
        await served?.stop();
        // the spans of the last messages drained, before the process exits
        await traced?.stop().catch((err: unknown) => log.warn({ err }, "exporting the last spans failed"));
      },
    };
    // handlers first: a SIGTERM sent by whoever saw the "started" line must drain, not kill
    stopOnSignals(log, draining, bus);
    health?.markStarted();
    // the heap bound it runs with (SERVICE_NODE_OPTIONS, or none: V8 grows the heap with the work's length)
    log.info({ ...(spec.describe?.(service, config) ?? {}), ...(health === undefined ? {} : { healthPort: health.port }), heapLimitMiB: heapLimitMiB() }, "service started");
  } catch (err) {
    log.error({ err }, "service refused to start");
    await health?.stop();
    await tracing?.stop().catch(() => undefined);
    await bus?.close().catch((closeErr: unknown) => log.warn({ err: closeErr }, "closing the connection failed"));
    die(err);
  }
}
