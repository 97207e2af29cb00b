import { runServiceProcess } from "@warden/service-kit";
import { loadConfig } from "./config.js";
import { startPolicyService } from "./service.js";

await runServiceProcess({
  name: "policy",
  loadConfig,
  start: ({ bus, log, config }) => startPolicyService({ bus, log, concurrency: config.WARDEN_POLICY_CONCURRENCY }),
  describe: (service) => ({ policyVersion: service.document().version }),
});
