import type { Bus, Logger } from "@warden/bus";
import type { LoadedSkill } from "@warden/skills";
import { startDomainExecutor, type DomainExecutor } from "./domain-executor.js";
import { loadManifestDir, ManifestError, type LoadedManifest } from "./manifest/load-manifests.js";
import { passedExecutorOptions, type PassedExecutorOptions } from "./passed-executor-options.js";
import { probeNetworkSandbox, type NetworkSandbox } from "./sandbox/network-sandbox.js";
import { probePidNamespace, type PidNamespace } from "./sandbox/pid-namespace.js";
import { hiddenPaths } from "./sandbox/hidden-paths.js";
import { probeToolSandbox, type ToolSandbox } from "./sandbox/tool-sandbox.js";
import { loadSkillsDir, skillManifests } from "./skill/load-skills.js";

export interface AdaptersServiceDeps extends PassedExecutorOptions {
  readonly bus: Bus;
  readonly log: Logger;
  /** A folder of manifests (`*.yaml`, `*.yml`, `*.json`), or manifests already loaded. */
  readonly manifests: string | readonly LoadedManifest[];
  /**
   * A folder of skill folders, or skills already loaded: their scripts run as CLI tools of domain
   * `skill-<name>`, each skill only as `warden skills add` stored it (docs/skills.md).
   */
  readonly skills?: string | readonly LoadedSkill[];
  /** The executor's environment: allow-listed variables and `env:` secrets come from here. */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly secretsFile?: string | undefined;
  /** How to cut processes off the network; probed when not given. */
  readonly sandbox?: NetworkSandbox;
  /** Whether CLI tools run in a PID namespace of their own (nothing they start outlives them); probed when not given. */
  readonly pidNamespace?: PidNamespace;
  /** The sandbox every tool's process runs in unless its manifest marks it trusted; probed when not given (as `sandboxUid` when set). */
  readonly toolSandbox?: ToolSandbox;
  /** As root, tools run as this unprivileged uid (and gid): writable roots must be that user's to write. */
  readonly sandboxUid?: number;
  /** Paths no tool may see besides WARDEN_HOME, the secrets file and key files named in env (e.g. the notary's key folder). */
  readonly hidden?: readonly string[];
  readonly registryPatienceMs?: number;
}

export interface AdaptersService {
  readonly domains: readonly DomainExecutor[];
  readonly sandbox: NetworkSandbox;
  readonly pidNamespace: PidNamespace;
  readonly toolSandbox: ToolSandbox;
  stop(): Promise<void>;
}

/** Loads every manifest and runs one executor per domain; any manifest that cannot run stops the start. */
export async function startAdaptersService(o: AdaptersServiceDeps): Promise<AdaptersService> {
  const own = typeof o.manifests === "string" ? await loadManifestDir(o.manifests) : o.manifests;
  const skills = o.skills === undefined ? [] : typeof o.skills === "string" ? await loadSkillsDir(o.skills) : o.skills;
  const manifests = [...own, ...(await skillManifests(o.bus, skills))];
  const domains = new Map<string, string>();
  for (const m of manifests) {
    const other = domains.get(m.manifest.domain);
    if (other !== undefined) throw new ManifestError(`${m.file}: domain ${m.manifest.domain} is already declared by ${other}; one manifest (or skill) per domain`);
    domains.set(m.manifest.domain, m.file);
  }
  const sandbox = o.sandbox ?? (await probeNetworkSandbox());
  const pidNamespace = o.pidNamespace ?? (await probePidNamespace());
  const toolSandbox = o.toolSandbox ?? (await probeToolSandbox(o.sandboxUid === undefined ? {} : { uid: o.sandboxUid }));
  const hidden = [...hiddenPaths(o.env, o.secretsFile), ...(o.hidden ?? [])];
  // never a silent fallback: untrusted tools are refused SANDBOX_UNAVAILABLE, and the operator is told why here
  if (!toolSandbox.available) o.log.warn({ reason: toolSandbox.reason }, "tools' sandbox unavailable: only tools marked trusted will run");
  o.log.info(
    {
      manifests: own.length,
      skills: skills.length,
      toolSandbox: toolSandbox.available ? `${toolSandbox.method}${toolSandbox.uid === undefined ? "" : ` as uid ${toolSandbox.uid}`}` : `unavailable: ${toolSandbox.reason}`,
      networkSandbox: sandbox.available ? sandbox.method : `unavailable: ${sandbox.reason}`,
      // without it a timed-out command's orphaned descendants can survive: see docs/security.md
      pidNamespace: pidNamespace.available ? pidNamespace.method : `unavailable: ${pidNamespace.reason}`,
    },
    "adapters starting",
  );
  const executors: DomainExecutor[] = [];
  try {
    for (const loaded of manifests) {
      executors.push(
        await startDomainExecutor({
          bus: o.bus,
          log: o.log,
          loaded,
          env: o.env,
          secretsFile: o.secretsFile,
          sandbox,
          pidNamespace,
          toolSandbox,
          hidden,
          ...(o.registryPatienceMs === undefined ? {} : { registryPatienceMs: o.registryPatienceMs }),
          ...passedExecutorOptions(o),
        }),
      );
    }
  } catch (err) {
    await Promise.allSettled(executors.map((d) => d.stop()));
    throw err;
  }
  return {
    domains: executors,
    sandbox,
    toolSandbox,
    pidNamespace,
    async stop() {
      await Promise.all(executors.map((d) => d.stop()));
      o.log.info("adapters stopped");
    },
  };
}
