#!/usr/bin/env node
import { runServiceProcess } from "@warden/service-kit";
import { loadColocatedConfig, startColocatedStages } from "./up/colocated-stages.js";

// `node cli/dist/colocated-main.js registry policy`: the registry and policy stages in one process,
// each as its own identity (WARDEN_REGISTRY_NATS_CREDS, WARDEN_POLICY_NATS_CREDS), with health,
// metrics and tracing as any service process; see docs/architecture.md and docs/operations.md
const names = process.argv.length > 2 ? process.argv.slice(2) : ["registry", "policy"];
await runServiceProcess({
  name: "colocated",
  loadConfig: (env) => loadColocatedConfig(names, env),
  start: ({ bus, log, config }) => startColocatedStages(config, { log, bus }),
  describe: (stages) => ({ stages: stages.names }),
});
