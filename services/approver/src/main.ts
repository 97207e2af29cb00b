import { readFileSync } from "node:fs";
import { ConfigError, connectBus, createLogger, ensureTopology, stopOnSignals } from "@warden/bus";
import { loadConfig } from "./config.js";
import { startApproverService } from "./service.js";

async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const log = createLogger("approver", config.LOG_LEVEL);
  const keyFile = config.WARDEN_APPROVER_SIGNING_KEY_FILE;
  const signingKeyPem = keyFile === undefined ? undefined : readKeyFile(keyFile);
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
  if (signingKeyPem === undefined) {
    log.warn(
      { keyId: service.signingKey.keyId, publicKey: service.signingKey.publicKeyDerBase64 },
      "no WARDEN_APPROVER_SIGNING_KEY_FILE: signing with a fresh key no executor has pinned, so executors will refuse its grants",
    );
  }
  log.info({ keyId: service.signingKey.keyId }, "approver service started");
  stopOnSignals(log, service, bus);
}

function readKeyFile(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (err) {
    throw new ConfigError(`invalid environment variable WARDEN_APPROVER_SIGNING_KEY_FILE=${JSON.stringify(path)}: ${(err as Error).message}`);
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`warden-approver: ${err instanceof ConfigError ? err.message : String((err as Error).stack ?? err)}\n`);
  process.exit(1);
});
