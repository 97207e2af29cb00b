import type { Bus, Logger } from "@warden/bus";
import { startAdaptersService } from "@warden/adapters";
import { startApproverService } from "@warden/approver";
import { putPolicyDocument, startPolicyService } from "@warden/policy";
import { startProjector } from "@warden/projector";
import { startRegistryService } from "@warden/registry";
import { startSupportDesk, supportDeskPolicy } from "@warden/example-support-desk";
import { endpointOf, loadConfig as loadSubagentConfig, startSubagentService, triageAgent } from "@warden/subagent";
import type { PolicyDocument } from "@warden/contracts";

interface Running {
  readonly name: string;
  stop(): Promise<void>;
}

export interface StartedServices {
  readonly names: string[];
  /** The demo's policy document, when --demo stored it. */
  readonly policy?: PolicyDocument;
  /** Stops everything, last started first. */
  stop(): Promise<void>;
}

/**
 * Starts the core services in this process, the adapters when WARDEN_MANIFESTS_DIR names a folder
 * of manifests, and for the demo its policy, domain and subagent (`env` gives the subagent its
 * model endpoint: OPENAI_BASE_URL, OPENAI_API_KEY).
 */
export async function startServices(bus: Bus, log: Logger, demo: boolean, env: NodeJS.ProcessEnv = {}): Promise<StartedServices> {
  const running: Running[] = [];
  const stopAll = async () => {
    for (const r of running.reverse()) {
      await r.stop().catch((err: unknown) => log.error({ err, service: r.name }, "service stop failed"));
    }
  };
  const start = async (name: string, run: () => Promise<{ stop(): Promise<void> }>) => {
    const handle = await run();
    running.push({ name, stop: () => handle.stop() });
  };
  try {
    await start("registry", () => startRegistryService({ bus, log: log.child({ service: "registry" }) }));
    await start("policy", () => startPolicyService({ bus, log: log.child({ service: "policy" }) }));
    await start("approver", () => startApproverService({ bus, log: log.child({ service: "approver" }) }));
    await start("projector", () => startProjector({ bus, log: log.child({ service: "projector" }) }));
    const manifests = env["WARDEN_MANIFESTS_DIR"];
    if (manifests) {
      // tools from manifests (CLI commands, HTTP APIs, MCP servers), as the adapters container runs them
      await start("adapters", () =>
        startAdaptersService({ bus, log: log.child({ service: "adapters" }), manifests, env, secretsFile: env["WARDEN_SECRETS_FILE"] }),
      );
    }
    let policy: PolicyDocument | undefined;
    if (demo) {
      const put = await putPolicyDocument(bus, supportDeskPolicy);
      if (!put.ok) throw new Error(`demo policy refused: ${put.error.message}`);
      policy = put.value.document;
      await start("support-desk", () => startSupportDesk({ bus, log: log.child({ service: "support-desk" }) }));
      const endpoint = endpointOf(loadSubagentConfig(env));
      await start("subagent", () => startSubagentService({ bus, log: log.child({ service: "subagent" }), agents: [triageAgent], endpoint }));
    }
    const names = running.map((r) => r.name);
    return { names, ...(policy === undefined ? {} : { policy }), stop: stopAll };
  } catch (err) {
    await stopAll();
    throw err;
  }
}
