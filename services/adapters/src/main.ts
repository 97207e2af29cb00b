import { ConfigError, connectBus, createLogger, ensureTopology, stopOnSignals } from "@warden/bus";
import { AdapterConfigError } from "./adapter-errors.js";
import { startAdaptersService } from "./adapters-service.js";
import { loadAdaptersConfig, type AdaptersConfig } from "./config.js";
import { loadManifestDir, ManifestError, type LoadedManifest } from "./manifest/load-manifests.js";
import { loadApproverKeys } from "@warden/executor";

/**
 * Process entry: env → config → manifests → logger → connect → topology → start → drain on
 * SIGTERM/SIGINT. Manifests and keys are read before connecting, so a bad manifest is reported as
 * itself, not as whatever the connection says.
 */
let config: AdaptersConfig;
let manifests: LoadedManifest[];
let approverKeys: string[];
try {
  config = loadAdaptersConfig(process.env);
  approverKeys = loadApproverKeys(process.env);
  manifests = await loadManifestDir(config.WARDEN_MANIFESTS_DIR);
} catch (err) {
  if (!(err instanceof ConfigError || err instanceof ManifestError || err instanceof AdapterConfigError)) throw err;
  process.stderr.write(`warden-adapters: ${err.message}\n`);
  process.exit(1);
}
const log = createLogger("adapters", config.LOG_LEVEL);
const bus = await connectBus(config, "warden-adapters");
await ensureTopology(bus);
let service: Awaited<ReturnType<typeof startAdaptersService>>;
try {
  service = await startAdaptersService({
    bus,
    log,
    manifests,
    // the adapters pass allow-listed variables and env secrets on from here, and nothing else
    env: process.env,
    secretsFile: config.WARDEN_SECRETS_FILE,
    concurrency: config.WARDEN_ADAPTERS_CONCURRENCY,
    approverKeys,
  });
} catch (err) {
  if (!(err instanceof ManifestError || err instanceof AdapterConfigError)) throw err;
  log.error({ reason: err.message }, "adapters refused to start");
  process.stderr.write(`warden-adapters: ${err.message}\n`);
  await bus.close();
  process.exit(1);
}

stopOnSignals(log, service, bus);
