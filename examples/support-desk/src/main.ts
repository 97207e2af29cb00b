import { ConfigError, connectBus, createLogger, ensureTopology, loadBusConfig, stopOnSignals } from "@warden/bus";
import { loadApproverKeys } from "@warden/executor";
import { startSupportDesk } from "./start-support-desk.js";

async function main(): Promise<void> {
  const config = loadBusConfig(process.env);
  const log = createLogger("support-desk", config.LOG_LEVEL);
  const bus = await connectBus(config, "warden-support-desk");
  await ensureTopology(bus);
  const desk = await startSupportDesk({ bus, log, approverKeys: loadApproverKeys(process.env) });
  stopOnSignals(log, desk, bus);
}

main().catch((err: unknown) => {
  process.stderr.write(`warden-support-desk: ${err instanceof ConfigError ? err.message : String((err as Error).stack ?? err)}\n`);
  process.exit(1);
});
