import { ConfigError, connectBus, createLogger, ensureTopology, stopOnSignals } from "@warden/bus";
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

stopOnSignals(log, service, bus);
