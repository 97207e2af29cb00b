import { loadBusConfig } from "@warden/bus";
import { ApproverKeyError, loadApproverKeys } from "@warden/executor";
import { runServiceProcess } from "@warden/service-kit";
import { startSupportDesk } from "./start-support-desk.js";

// as every service: env → config → connect → start → drain on SIGTERM, and health and metrics
// on WARDEN_HEALTH_PORT; a domain team's executor main.ts can be this file with its own tools
await runServiceProcess({
  name: "support-desk",
  loadConfig: (env) => ({ ...loadBusConfig(env), approverKeys: loadApproverKeys(env) }),
  start: ({ bus, log, config }) => startSupportDesk({ bus, log, approverKeys: config.approverKeys }),
  operatorErrors: [ApproverKeyError],
});
