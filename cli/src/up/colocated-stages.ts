import { ConfigError, connectBus, ensureTopology, loadBusConfig, type Bus, type BusConfig, type Logger } from "@warden/bus";
import { loadConfig as loadPolicyConfig, startPolicyService } from "@warden/policy";
import { loadConfig as loadRegistryConfig, startRegistryService } from "@warden/registry";

/** A stage, started on its own connection, as its service's main.ts would start it. */
type StageStart = (log: Logger, bus: Bus) => Promise<{ stop(): Promise<void> }>;

/**
 * The stages that may share a process for latency (issue 12): still two services' code, two
 * events, two durables, and each its own NATS identity with only its own rights — only the
 * process (and its event loop) is shared. Services may not import each other, so the CLI package,
 * which already starts every service for `warden up`, holds this. Each reads its settings as its
 * own process does (`services/<name>/src/main.ts`), before anything connects.
 */
const STAGES = {
  registry: (env: NodeJS.ProcessEnv): StageStart => {
    const config = loadRegistryConfig(env);
    return (log, bus) => startRegistryService({ bus, log, concurrency: config.WARDEN_REGISTRY_CONCURRENCY, hideDownDomains: config.WARDEN_REGISTRY_HIDE_DOWN_DOMAINS });
  },
  policy: (env: NodeJS.ProcessEnv): StageStart => {
    const config = loadPolicyConfig(env);
    return (log, bus) => startPolicyService({ bus, log, concurrency: config.WARDEN_POLICY_CONCURRENCY, requireLiveExecutor: config.WARDEN_POLICY_REQUIRE_LIVE_EXECUTOR });
  },
} as const;

export type ColocatedStage = keyof typeof STAGES;
export const COLOCATED_STAGES = Object.keys(STAGES) as ColocatedStage[];

/**
 * The process's settings: its own connection's (the first stage's identity: it serves health and
 * metrics, checks the topology and runs that stage), and each stage's connection and start.
 */
export interface ColocatedConfig extends BusConfig {
  readonly stages: readonly { readonly name: ColocatedStage; readonly bus: BusConfig; readonly start: StageStart }[];
}

export interface ColocatedStages {
  readonly names: readonly ColocatedStage[];
  /** Stops the stages (they drain their consumers), last started first, and closes the connections they opened. */
  stop(): Promise<void>;
}

/** The variable that names a stage's credentials file: `WARDEN_REGISTRY_NATS_CREDS`, `WARDEN_POLICY_NATS_CREDS`. */
export function credsVariableOf(name: ColocatedStage): string {
  return `WARDEN_${name.toUpperCase()}_NATS_CREDS`;
}

/**
 * Reads the settings of `names` sharing a process: each stage's credentials from
 * {@link credsVariableOf} (NATS_CREDS is not shared between stages), the rest of its config from
 * `env` as its own process would read it (NATS_URL, LOG_LEVEL, WARDEN_<NAME>_*), and the
 * process's (WARDEN_HEALTH_PORT, ...) as any service's.
 * @throws ConfigError when a name is not a stage that may share a process, its credentials are not named, or a setting is bad.
 */
export function loadColocatedConfig(names: readonly string[], env: NodeJS.ProcessEnv): ColocatedConfig {
  if (names.length === 0) throw new ConfigError(`name the stages to run: ${COLOCATED_STAGES.join(", ")}`);
  const chosen = names.map((name) => {
    if (!(COLOCATED_STAGES as readonly string[]).includes(name)) throw new ConfigError(`${name} cannot share a process; these can: ${COLOCATED_STAGES.join(", ")}`);
    return name as ColocatedStage;
  });
  const stages = chosen.map((stage) => {
    const creds = env[credsVariableOf(stage)];
    if (!creds) throw new ConfigError(`${credsVariableOf(stage)} is not set: each stage connects as its own identity`);
    const own: NodeJS.ProcessEnv = { ...env, NATS_CREDS: creds };
    return { name: stage, bus: loadBusConfig(own), start: STAGES[stage](own) };
  });
  return { ...stages[0]!.bus, stages };
}

/**
 * Starts the stages of `config` in this process, each connected as its own identity. With `bus`
 * (the process's connection, as the first stage's identity) the first stage runs on it and the
 * caller owns it; the others connect here, and check the topology as their own process would.
 */
export async function startColocatedStages(config: ColocatedConfig, o: { readonly log: Logger; readonly bus?: Bus }): Promise<ColocatedStages> {
  const running: { stop(): Promise<void> }[] = [];
  const opened: Bus[] = [];
  const stop = async () => {
    for (const r of running.reverse()) await r.stop();
    await Promise.all(opened.map((b) => b.close()));
  };
  try {
    for (const [i, stage] of config.stages.entries()) {
      let bus = i === 0 ? o.bus : undefined;
      if (bus === undefined) {
        bus = await connectBus(stage.bus, `warden-${stage.name}`);
        opened.push(bus);
        await ensureTopology(bus);
      }
      running.push(await stage.start(o.log.child({ stage: stage.name }), bus));
    }
  } catch (err) {
    await stop().catch(() => undefined);
    throw err;
  }
  return { names: config.stages.map((s) => s.name), stop };
}
