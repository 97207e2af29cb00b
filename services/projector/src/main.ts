import { ConfigError, connectBus, createLogger, ensureTopology, stopOnSignals } from "@warden/bus";
import { loadConfig } from "./config.js";
import { startProjector } from "./service.js";

async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const log = createLogger("projector", config.LOG_LEVEL);
  const bus = await connectBus(config, "warden-projector");
  await ensureTopology(bus);
  const projector = await startProjector({
    bus,
    log,
    batchSize: config.WARDEN_PROJECTOR_BATCH,
    ackWaitMs: config.WARDEN_PROJECTOR_ACK_WAIT_MS,
    leaseTtlMs: config.WARDEN_PROJECTOR_LEASE_MS,
  });
  log.info({ batch: config.WARDEN_PROJECTOR_BATCH }, "projector started");
  stopOnSignals(log, projector, bus);
}

main().catch((err: unknown) => {
  process.stderr.write(`warden-projector: ${err instanceof ConfigError ? err.message : String((err as Error).stack ?? err)}\n`);
  process.exit(1);
});
