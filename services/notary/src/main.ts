import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { ConfigError } from "@warden/bus";
import { runServiceProcess } from "@warden/service-kit";
import { loadConfig } from "./config.js";
import { HEAD_LOG_FILE } from "./head-log.js";
import { startNotaryService } from "./service.js";

await runServiceProcess({
  name: "notary",
  // the key file is read before connecting, so a missing one is reported as itself
  loadConfig: (env) => {
    const config = loadConfig(env);
    return { ...config, signingKeyPem: readKeyFile(config.WARDEN_NOTARY_SIGNING_KEY_FILE) };
  },
  start: ({ bus, log, config }) =>
    startNotaryService({
      bus,
      log,
      signingKeyPem: config.signingKeyPem,
      maxMessages: config.WARDEN_NOTARY_MAX_MESSAGES,
      intervalMs: config.WARDEN_NOTARY_INTERVAL_MS,
      headLogFile: config.WARDEN_NOTARY_HEAD_LOG ?? join(dirname(config.WARDEN_NOTARY_SIGNING_KEY_FILE), HEAD_LOG_FILE),
    }),
  describe: (service, config) => ({ keyId: service.keyId, maxMessages: config.WARDEN_NOTARY_MAX_MESSAGES, intervalMs: config.WARDEN_NOTARY_INTERVAL_MS }),
});

function readKeyFile(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (err) {
    throw new ConfigError(`invalid environment variable WARDEN_NOTARY_SIGNING_KEY_FILE=${JSON.stringify(path)}: ${(err as Error).message}`);
  }
}
