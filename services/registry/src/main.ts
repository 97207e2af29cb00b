import { ConfigError, connectBus, createLogger, ensureTopology } from "@warden/bus";
import { loadRegistryConfig, type RegistryConfig } from "./config.js";
import { startRegistryService } from "./registry-service.js";

/** Process entry: env → config → logger → connect → topology → start → drain on SIGTERM/SIGINT. */
let config: RegistryConfig;
try {
  config = loadRegistryConfig(process.env);
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  process.stderr.write(`warden-registry: ${err.message}\n`);
  process.exit(1);
}
const log = createLogger("registry", config.LOG_LEVEL);
const bus = await connectBus(config, "warden-registry");
await ensureTopology(bus);
const service = await startRegistryService({ bus, log, concurrency: config.WARDEN_REGISTRY_CONCURRENCY });

let shuttingDown = false;
async function shutdown(signal: string): Promise<void> {
  if (shuttingDown) return;
  shuttingDown = true;
  log.info({ signal }, "shutting down");
  try {
    await service.stop();
    await bus.close();
    process.exit(0);
  } catch (err) {
    log.error({ err }, "shutdown failed");
    process.exit(1);
  }
}
process.once("SIGTERM", () => void shutdown("SIGTERM"));
process.once("SIGINT", () => void shutdown("SIGINT"));
