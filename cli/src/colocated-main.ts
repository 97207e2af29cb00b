#!/usr/bin/env node
import { ConfigError } from "@warden/bus";
import { startColocatedStages } from "./up/colocated-stages.js";

// `node cli/dist/colocated-main.js registry policy`: the registry and policy stages in one process,
// each as its own identity (WARDEN_REGISTRY_NATS_CREDS, WARDEN_POLICY_NATS_CREDS); see docs/architecture.md
const names = process.argv.length > 2 ? process.argv.slice(2) : ["registry", "policy"];
try {
  const stages = await startColocatedStages(names, process.env);
  let stopping = false;
  const shutdown = () => {
    if (stopping) return;
    stopping = true;
    stages.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`warden-colocated: shutdown failed: ${String(err)}\n`);
        process.exit(1);
      },
    );
  };
  process.once("SIGTERM", shutdown);
  process.once("SIGINT", shutdown);
} catch (err) {
  process.stderr.write(`warden-colocated: ${err instanceof ConfigError ? err.message : String((err as Error).stack ?? err)}\n`);
  process.exit(1);
}
