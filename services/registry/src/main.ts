import { runServiceProcess } from "@warden/service-kit";
import { loadConfig } from "./config.js";
import { startRegistryService } from "./service.js";

await runServiceProcess({
  name: "registry",
  loadConfig,
  start: ({ bus, log, config }) => startRegistryService({ bus, log, concurrency: config.WARDEN_REGISTRY_CONCURRENCY, hideDownDomains: config.WARDEN_REGISTRY_HIDE_DOWN_DOMAINS }),
});
