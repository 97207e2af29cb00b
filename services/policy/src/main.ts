import { ConfigError, connectBus, createLogger, ensureTopology, stopOnSignals } from "@warden/bus";
import { loadConfig } from "./config.js";
import { startPolicyService } from "./service.js";

async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const log = createLogger("policy", config.LOG_LEVEL);
  const bus = await connectBus(config, "warden-policy");
  await ensureTopology(bus);
  const service = await startPolicyService({ bus, log, concurrency: config.WARDEN_POLICY_CONCURRENCY });
  log.info({ policyVersion: service.document().version }, "policy service started");
  stopOnSignals(log, service, bus);
}

main().catch((err: unknown) => {
  process.stderr.write(`warden-policy: ${err instanceof ConfigError ? err.message : String((err as Error).stack ?? err)}\n`);
  process.exit(1);
});
