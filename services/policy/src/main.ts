import { runServiceProcess } from "@warden/service-kit";
import { loadConfig } from "./config.js";
import { startPolicyService } from "./service.js";

await runServiceProcess({
  name: "policy",
  loadConfig,
  start: ({ bus, log, config }) => startPolicyService({ bus, log, concurrency: config.WARDEN_POLICY_CONCURRENCY, requireLiveExecutor: config.WARDEN_POLICY_REQUIRE_LIVE_EXECUTOR }),
  describe: (service) => ({ policyVersion: service.document().version }),
});
