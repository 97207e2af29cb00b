import { ConfigError, connectBus, createLogger, ensureTopology, stopOnSignals, type Bus, type BusConfig, type Logger } from "@warden/bus";

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
  /** Starts the service on a connected bus (topology checked). */
  readonly start: (ctx: { readonly bus: Bus; readonly log: Logger; readonly config: C }) => Promise<S>;
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
 * Every service's main.ts: env → config → logger → connect → topology → start → drain on
 * SIGTERM/SIGINT. An operator's error (bad config, a refused manifest) exits 1 with its message
 * alone; anything else exits 1 with its stack.
 */
export async function runServiceProcess<C extends BusConfig, S extends StoppableService>(spec: ServiceProcessSpec<C, S>, io: ProcessIo = THIS_PROCESS): Promise<void> {
  const isOperatorError = (err: unknown) => err instanceof ConfigError || (spec.operatorErrors ?? []).some((c) => err instanceof c);
  const die = (err: unknown): never => {
    io.writeError(`warden-${spec.name}: ${isOperatorError(err) ? (err as Error).message : String((err as Error).stack ?? err)}\n`);
    return io.exit(1);
  };
  let config: C;
  try {
    config = await spec.loadConfig(io.env);
  } catch (err) {
    return die(err);
  }
  const log = createLogger(spec.name, config.LOG_LEVEL);
  let bus: Bus | undefined;
  try {
    bus = await connectBus(config, `warden-${spec.name}`);
    await ensureTopology(bus);
    const service = await spec.start({ bus, log, config });
    // handlers first: a SIGTERM sent by whoever saw the "started" line must drain, not kill
    stopOnSignals(log, service, bus);
    log.info(spec.describe?.(service, config) ?? {}, "service started");
  } catch (err) {
    log.error({ err }, "service refused to start");
    await bus?.close().catch((closeErr: unknown) => log.warn({ err: closeErr }, "closing the connection failed"));
    die(err);
  }
}
