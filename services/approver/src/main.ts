import { readFileSync } from "node:fs";
import { ConfigError } from "@warden/bus";
import { runServiceProcess } from "@warden/service-kit";
import { loadConfig } from "./config.js";
import { startApproverService } from "./service.js";

await runServiceProcess({
  name: "approver",
  // the key file is read before connecting, so a missing one is reported as itself
  loadConfig: (env) => {
    const config = loadConfig(env);
    const keyFile = config.WARDEN_APPROVER_SIGNING_KEY_FILE;
    return { ...config, signingKeyPem: keyFile === undefined ? undefined : readKeyFile(keyFile) };
  },
  start: async ({ bus, log, config, metrics }) => {
    const service = await startApproverService({
      bus,
      log,
      ...(metrics === undefined ? {} : { metrics }),
      ...(config.signingKeyPem === undefined ? {} : { signingKeyPem: config.signingKeyPem }),
      sweepIntervalMs: config.WARDEN_APPROVER_SWEEP_MS,
      concurrency: config.WARDEN_APPROVER_CONCURRENCY,
      inboxWaitMs: config.WARDEN_APPROVER_INBOX_WAIT_MS,
    });
    if (config.signingKeyPem === undefined) {
      log.warn(
        { keyId: service.signingKey.keyId, publicKey: service.signingKey.publicKeyDerBase64 },
        "no WARDEN_APPROVER_SIGNING_KEY_FILE: signing with a fresh key no executor has pinned, so executors will refuse its grants",
      );
    }
    return service;
  },
  describe: (service) => ({ keyId: service.signingKey.keyId }),
});

function readKeyFile(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (err) {
    throw new ConfigError(`invalid environment variable WARDEN_APPROVER_SIGNING_KEY_FILE=${JSON.stringify(path)}: ${(err as Error).message}`);
  }
}
