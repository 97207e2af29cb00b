import { ConfigError, connectBus, createLogger, ensureTopology, stopOnSignals } from "@warden/bus";
import { loadApproverKeys } from "@warden/executor";
import { loadAgentsFile } from "./agents-file.js";
import { endpointOf, loadConfig } from "./config.js";
import { triageAgent } from "./demo/triage.js";
import { SubagentDefinitionError } from "./descriptor.js";
import { SubagentStartError } from "./resolve-grades.js";
import { startSubagentService } from "./service.js";

async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const log = createLogger("subagent", config.LOG_LEVEL);
  const agents = config.WARDEN_SUBAGENTS_FILE === undefined ? [triageAgent] : await loadAgentsFile(config.WARDEN_SUBAGENTS_FILE);
  const bus = await connectBus(config, "warden-subagent");
  await ensureTopology(bus);
  const service = await startSubagentService({
    bus,
    log,
    agents,
    endpoint: endpointOf(config),
    concurrency: config.WARDEN_SUBAGENT_CONCURRENCY,
    approverKeys: loadApproverKeys(process.env),
  });
  log.info({ agents: service.agents }, "subagent service started");
  stopOnSignals(log, service, bus);
}

main().catch((err: unknown) => {
  const known = err instanceof ConfigError || err instanceof SubagentDefinitionError || err instanceof SubagentStartError;
  process.stderr.write(`warden-subagent: ${known ? (err as Error).message : String((err as Error).stack ?? err)}\n`);
  process.exit(1);
});
