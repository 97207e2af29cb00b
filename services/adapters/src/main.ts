import { ApproverKeyError, loadApproverKeys } from "@warden/executor";
import { runServiceProcess } from "@warden/service-kit";
import { AdapterConfigError } from "./adapter-errors.js";
import { loadConfig } from "./config.js";
import { loadManifestDir, ManifestError } from "./manifest/load-manifests.js";
import { startAdaptersService } from "./service.js";
import { loadSkillsDir } from "./skill/load-skills.js";

await runServiceProcess({
  name: "adapters",
  // manifests and keys are read before connecting, so a bad manifest is reported as itself
  loadConfig: async (env) => {
    const config = loadConfig(env);
    return {
      ...config,
      approverKeys: loadApproverKeys(env),
      manifests: await loadManifestDir(config.WARDEN_MANIFESTS_DIR),
      skills: config.WARDEN_SKILLS_DIR === undefined ? [] : await loadSkillsDir(config.WARDEN_SKILLS_DIR),
    };
  },
  start: ({ bus, log, config }) =>
    startAdaptersService({
      bus,
      log,
      manifests: config.manifests,
      skills: config.skills,
      // the adapters pass allow-listed variables and env secrets on from here, and nothing else
      env: process.env,
      secretsFile: config.WARDEN_SECRETS_FILE,
      concurrency: config.WARDEN_ADAPTERS_CONCURRENCY,
      approverKeys: config.approverKeys,
      ...(config.WARDEN_SANDBOX_UID === undefined ? {} : { sandboxUid: config.WARDEN_SANDBOX_UID }),
    }),
  operatorErrors: [ManifestError, AdapterConfigError, ApproverKeyError],
});
