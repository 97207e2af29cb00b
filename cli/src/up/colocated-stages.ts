import { ConfigError, connectBus, createLogger, ensureTopology, loadBusConfig, type Bus, type Logger } from "@warden/bus";
import { loadConfig as loadPolicyConfig, startPolicyService } from "@warden/policy";
import { loadConfig as loadRegistryConfig, startRegistryService } from "@warden/registry";

/**
 * The stages that may share a process for latency (issue 12): still two services' code, two
 * events, two durables, and each its own NATS identity with only its own rights — only the
 * process (and its event loop) is shared. Services may not import each other, so the CLI package,
 * which already starts every service for `warden up`, holds this.
 */
const STAGES = {
  registry: async (env: NodeJS.ProcessEnv, log: Logger, bus: Bus) => {
    const config = loadRegistryConfig(env);
    return startRegistryService({ bus, log, concurrency: config.WARDEN_REGISTRY_CONCURRENCY });
  },
  policy: async (env: NodeJS.ProcessEnv, log: Logger, bus: Bus) => {
    const config = loadPolicyConfig(env);
    return startPolicyService({ bus, log, concurrency: config.WARDEN_POLICY_CONCURRENCY });
  },
} as const;

export type ColocatedStage = keyof typeof STAGES;
export const COLOCATED_STAGES = Object.keys(STAGES) as ColocatedStage[];

export interface ColocatedStages {
  readonly names: readonly ColocatedStage[];
  /** Stops the stages (they drain their consumers), last started first, and closes their connections. */
  stop(): Promise<void>;
}

/** The variable that names a stage's credentials file: `WARDEN_REGISTRY_NATS_CREDS`, `WARDEN_POLICY_NATS_CREDS`. */
export function credsVariableOf(name: ColocatedStage): string {
  return `WARDEN_${name.toUpperCase()}_NATS_CREDS`;
}

/**
 * Starts `names` in this process, each connected as its own identity: its credentials come from
 * {@link credsVariableOf} (NATS_CREDS is not shared between stages), the rest of its config from
 * `env` as its own process would read it (NATS_URL, LOG_LEVEL, WARDEN_<NAME>_CONCURRENCY).
 * @throws ConfigError when a name is not a stage that may share a process, or its credentials are not named.
 */
export async function startColocatedStages(names: readonly string[], env: NodeJS.ProcessEnv): Promise<ColocatedStages> {
  const stages = names.map((name): ColocatedStage => {
    if (!(COLOCATED_STAGES as readonly string[]).includes(name)) throw new ConfigError(`${name} cannot share a process; these can: ${COLOCATED_STAGES.join(", ")}`);
    return name as ColocatedStage;
  });
  for (const name of stages) {
    if (!env[credsVariableOf(name)]) throw new ConfigError(`${credsVariableOf(name)} is not set: each stage connects as its own identity`);
  }
  const running: { stop(): Promise<void> }[] = [];
  const buses: Bus[] = [];
  const stop = async () => {
    for (const r of running.reverse()) await r.stop();
    await Promise.all(buses.map((b) => b.close()));
  };
  try {
    for (const name of stages) {
      const own: NodeJS.ProcessEnv = { ...env, NATS_CREDS: env[credsVariableOf(name)] };
      const busConfig = loadBusConfig(own);
      const log = createLogger(name, busConfig.LOG_LEVEL);
      const bus = await connectBus(busConfig, `warden-${name}`);
      buses.push(bus);
      await ensureTopology(bus);
      running.push(await STAGES[name](own, log, bus));
    }
  } catch (err) {
    await stop().catch(() => undefined);
    throw err;
  }
  return { names: stages, stop };
}
