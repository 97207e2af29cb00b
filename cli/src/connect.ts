import { ConfigError, connectBus, loadBusConfig, type Bus, type BusConfig } from "@warden/bus";
import { CliError, EXIT_FAILED, EXIT_UNREACHABLE } from "./errors.js";

export function busConfig(env: NodeJS.ProcessEnv, overrides: Partial<Record<keyof BusConfig, string>> = {}): BusConfig {
  try {
    return loadBusConfig({ ...env, ...overrides });
  } catch (err) {
    if (err instanceof ConfigError) throw new CliError("INVALID_REQUEST", err.message, EXIT_FAILED);
    throw err;
  }
}

/** Connects to NATS_URL (default nats://127.0.0.1:4222); failing to is exit code 2 with one clear line. */
export async function openBus(config: BusConfig, name: string): Promise<Bus> {
  try {
    return await connectBus(config, name);
  } catch (err) {
    throw new CliError(
      "UNAVAILABLE",
      `cannot reach NATS at ${config.NATS_URL} (${(err as Error).message}); start Warden with \`npm start\` or set NATS_URL`,
      EXIT_UNREACHABLE,
    );
  }
}

/** Runs a command body with a connection that is drained afterwards. */
export async function withBus<T>(env: NodeJS.ProcessEnv, name: string, body: (bus: Bus) => Promise<T>): Promise<T> {
  const bus = await openBus(busConfig(env), name);
  try {
    return await body(bus);
  } finally {
    await bus.close();
  }
}
