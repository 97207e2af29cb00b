import { ApproverKeyError, loadApproverKeys } from "@warden/executor";
import { runServiceProcess } from "@warden/service-kit";
import { loadAgentsFile } from "./agents-file.js";
import { endpointOf, loadConfig } from "./config.js";
import { triageAgent } from "./demo/triage.js";
import { SubagentDefinitionError } from "./descriptor.js";
import { SubagentStartError } from "./resolve-grades.js";
import { startSubagentService } from "./service.js";

await runServiceProcess({
  name: "subagent",
  loadConfig: async (env) => {
    const config = loadConfig(env);
    const agents = config.WARDEN_SUBAGENTS_FILE === undefined ? [triageAgent] : await loadAgentsFile(config.WARDEN_SUBAGENTS_FILE);
    return { ...config, agents, approverKeys: loadApproverKeys(env) };
  },
  start: ({ bus, log, config }) =>
    startSubagentService({
      bus,
      log,
      agents: config.agents,
      endpoint: endpointOf(config),
      concurrency: config.WARDEN_SUBAGENT_CONCURRENCY,
      approverKeys: config.approverKeys,
    }),
  describe: (service) => ({ agents: service.agents }),
  operatorErrors: [SubagentDefinitionError, SubagentStartError, ApproverKeyError],
});
