import { CallStreamTap, observeBus, type Bus, type Logger } from "@warden/bus";
import { createServiceMetrics, startHealthServer } from "@warden/service-kit";
import { startAdaptersService, type LoadedManifest } from "@warden/adapters";
import { startApproverService } from "@warden/approver";
import { startPolicyService } from "@warden/policy";
import { startNotaryService } from "@warden/notary";
import { startProjectorService } from "@warden/projector";
import { startRegistryService } from "@warden/registry";
import { startSupportDesk } from "@warden/example-support-desk";
import { endpointOf, loadConfig as loadSubagentConfig, startSubagentService, triageAgent } from "@warden/subagent";
import type { PolicyDocument } from "@warden/contracts/policy";
import type { LoadedSkill } from "@warden/skills";

interface Running {
  readonly name: string;
  stop(): Promise<void>;
}

export interface StartedServices {
  readonly names: string[];
  /** The demo's policy document, when --demo stored it. */
  readonly policy?: PolicyDocument;
  /** Where /healthz, /readyz and /metrics are served, when asked for. */
  readonly healthPort?: number;
  /** Stops everything, last started first. */
  stop(): Promise<void>;
}

/** A connection as one provisioned identity, by name (the names of `standardIdentities`). */
export type ConnectAs = (name: string) => Promise<Bus>;

export interface StartServicesOptions {
  /**
   * A read-only connection (the auditor's) for the process's health and metrics: the admin's was
   * closed once the topology was provisioned, so no running service can use it.
   */
  readonly observer: Bus;
  /** The demo's policy document, stored by the admin before the services start. */
  readonly policy?: PolicyDocument;
  /**
   * Done as the admin once the core services run (the skills need the registry), then the admin's
   * connection closes: before the adapters and the demo's executors, which run others' code, start.
   */
  readonly asAdminThenClose: () => Promise<void>;
  readonly connectAs: ConnectAs;
  readonly log: Logger;
  readonly demo: boolean;
  /** The approver's private key (PEM) and the public keys executors pin. */
  readonly approverSigningKeyPem: string;
  readonly approverKeys: readonly string[];
  /** The notary's private key (PEM); auditors pin its public half. */
  readonly notarySigningKeyPem: string;
  /** Where the notary appends every checkpoint (its head log, outside the bus). */
  readonly notaryHeadLogFile?: string;
  /** Manifests the adapters run, already loaded (WARDEN_MANIFESTS_DIR). */
  readonly manifests?: readonly LoadedManifest[];
  /** Skills (WARDEN_SKILLS_DIR), already loaded and added by the admin: their scripts run by the adapters. */
  readonly skills?: readonly LoadedSkill[];
  /** The subagent's model endpoint (OPENAI_BASE_URL, OPENAI_API_KEY) and the adapters' allow-listed env. */
  readonly env: NodeJS.ProcessEnv;
  /** Paths no tool's sandbox may show (WARDEN_HOME and key folders), besides those the env names. */
  readonly hidden: readonly string[];
  /** Serve health and metrics for the whole process on this port (0: a free one). */
  readonly healthPort?: number;
  readonly healthHost?: string;
}

/**
 * Starts the core services in this process, each connected as its own identity with only its
 * own rights; the adapters when manifests are given; and for the demo its policy, domain and
 * subagent.
 */
export async function startServices(o: StartServicesOptions): Promise<StartedServices> {
  const { log, connectAs, approverKeys } = o;
  const running: Running[] = [];
  let healthPort: number | undefined;
  let markReady = () => undefined as void;
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
    // one health server and one set of metrics for the whole process (WARDEN_HEALTH_PORT), as each
    // service process has its own; it answers /healthz while the services start, /readyz once all have
    const metrics = o.healthPort === undefined ? undefined : createServiceMetrics({ service: "warden-up", bus: o.observer, log });
    if (metrics !== undefined) {
      const undo = observeBus(metrics.observer);
      const health = await startHealthServer({ bus: o.observer, log, metrics, port: o.healthPort!, host: o.healthHost ?? "127.0.0.1" });
      healthPort = health.port;
      markReady = () => health.markStarted();
      running.push({
        name: "health",
        stop: async () => {
          health.markStopping();
          await health.stop();
          undo();
        },
      });
    }
    await start("registry", async () => startRegistryService({ bus: await connectAs("registry"), log: log.child({ service: "registry" }), hideDownDomains: true }));
    await start("policy", async () => startPolicyService({ bus: await connectAs("policy"), log: log.child({ service: "policy" }), requireLiveExecutor: true }));
    await start("approver", async () =>
      startApproverService({ bus: await connectAs("approver"), log: log.child({ service: "approver" }), signingKeyPem: o.approverSigningKeyPem, ...(metrics === undefined ? {} : { metrics }) }),
    );
    // the notary seals what the projector in this process was delivered, not a second read of it
    const tap = new CallStreamTap();
    await start("projector", async () => startProjectorService({ bus: await connectAs("projector"), log: log.child({ service: "projector" }), tap }));
    await start("notary", async () =>
      startNotaryService({
        bus: await connectAs("notary"),
        tap,
        log: log.child({ service: "notary" }),
        signingKeyPem: o.notarySigningKeyPem,
        ...(o.notaryHeadLogFile === undefined ? {} : { headLogFile: o.notaryHeadLogFile }),
      }),
    );
    await o.asAdminThenClose();
    const manifests = o.manifests ?? [];
    const skills = o.skills ?? [];
    if (manifests.length > 0 || skills.some((s) => s.frontMatter.tools.length > 0)) {
      // tools from manifests (CLI commands, HTTP APIs, MCP servers), as the adapters container runs them
      await start("adapters", async () =>
        startAdaptersService({
          bus: await connectAs("adapters"),
          log: log.child({ service: "adapters" }),
          manifests,
          skills,
          env: o.env,
          secretsFile: o.env["WARDEN_SECRETS_FILE"],
          approverKeys,
          hidden: o.hidden,
        }),
      );
    }
    if (o.demo) {
      await start("support-desk", async () =>
        startSupportDesk({ bus: await connectAs("support-desk"), log: log.child({ service: "support-desk" }), approverKeys }),
      );
      const endpoint = endpointOf(loadSubagentConfig(o.env));
      await start("subagent", async () =>
        startSubagentService({
          bus: await connectAs("subagent"),
          log: log.child({ service: "subagent" }),
          agents: [triageAgent],
          endpoint,
          approverKeys,
        }),
      );
    }
    const names = running.map((r) => r.name).filter((n) => n !== "health");
    markReady();
    return { names, ...(o.policy === undefined ? {} : { policy: o.policy }), ...(healthPort === undefined ? {} : { healthPort }), stop: stopAll };
  } catch (err) {
    await stopAll();
    throw err;
  }
}
