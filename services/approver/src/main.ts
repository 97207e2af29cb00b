import { readFileSync } from "node:fs";
import { ConfigError, connectBus, createLogger, ensureTopology, stopOnSignals } from "@warden/bus";
import { loadConfig } from "./config.js";
import { startApproverService } from "./service.js";

async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const log = createLogger("approver", config.LOG_LEVEL);
  const signingKeyPem = config.WARDEN_APPROVER_KEY_FILE === undefined ? undefined : readFileSync(config.WARDEN_APPROVER_KEY_FILE, "utf8");
  const bus = await connectBus(config, "warden-approver");
  await ensureTopology(bus);
  const service = await startApproverService({
    bus,
    log,
    ...(signingKeyPem === undefined ? {} : { signingKeyPem }),
    sweepIntervalMs: config.WARDEN_APPROVER_SWEEP_MS,
    concurrency: config.WARDEN_APPROVER_CONCURRENCY,
    inboxWaitMs: config.WARDEN_APPROVER_INBOX_WAIT_MS,
  });
  log.info({ keyId: service.signingKey.keyId }, "approver service started");
  stopOnSignals(log, service, bus);
}

main().catch((err: unknown) => {
  process.stderr.write(`warden-approver: ${err instanceof ConfigError ? err.message : String((err as Error).stack ?? err)}\n`);
  process.exit(1);
});
