import { SecretStore, type ExecutableTool } from "@warden/executor";
import { createRegistryClient, type RegistryClient } from "@warden/sdk";
import { AdapterConfigError } from "./adapter-errors.js";
import { cliTool } from "./cli-adapter/cli-tool.js";
import { ExecutorSlot } from "./domain-executor-slot.js";
import { discoverDomainMcpTools, type DomainMcpSource } from "./domain-mcp-tools.js";
import { httpTool } from "./http-adapter/http-tool.js";
import { manifestToolNames, type ManifestRunOptions } from "./manifest-run-options.js";
import { McpConnection } from "./mcp-adapter/mcp-connection.js";
import { passedExecutorOptions, type PassedExecutorOptions } from "./passed-executor-options.js";
import { ToolRefreshQueue } from "./tool-refresh-queue.js";
import { probePidNamespace, type PidNamespace } from "./sandbox/pid-namespace.js";
import type { ToolConfinement } from "./sandbox/confine-tool-process.js";
import { hiddenPaths } from "./sandbox/hidden-paths.js";
import { probeToolSandbox, type ToolSandbox } from "./sandbox/tool-sandbox.js";

const DEFAULT_REGISTRY_PATIENCE_MS = 30_000;

export interface DomainExecutorOptions extends ManifestRunOptions, PassedExecutorOptions {
  /** Whether CLI tools run in a PID namespace of their own; probed when not given. */
  readonly pidNamespace?: PidNamespace;
  /** The tools' sandbox every command runs in (probed when not given) and the paths it hides (default: {@link hiddenPaths} of env). */
  readonly toolSandbox?: ToolSandbox;
  readonly hidden?: readonly string[];
  /** How long to keep asking a registry that answers a retryable error (it may start after us; default 30 s). */
  readonly registryPatienceMs?: number;
}

export interface DomainExecutor {
  readonly domain: string;
  /** The tools running now, name → version. */
  tools(): ReadonlyMap<string, string>;
  /** Lists the MCP server's tools again; new or changed ones are registered and the executor restarts with them. */
  refresh(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Runs one manifest's domain: its CLI and HTTP tools, and the tools its MCP server offers,
 * in one executor. The MCP server's changes (announced, or seen right before a call) lead to
 * new `discovered` versions and a restart of the executor with them.
 */
export async function startDomainExecutor(o: DomainExecutorOptions): Promise<DomainExecutor> {
  const { manifest, dir } = o.loaded;
  const domain = manifest.domain;
  const log = o.log.child({ domain });
  const secrets = new SecretStore(manifest.secrets, { env: o.env, secretsFile: o.secretsFile });
  const registry = createRegistryClient(o.bus, { patienceMs: o.registryPatienceMs ?? DEFAULT_REGISTRY_PATIENCE_MS, log });
  const pidNamespace = o.pidNamespace ?? (await probePidNamespace());
  const confinement: ToolConfinement = { toolSandbox: o.toolSandbox ?? (await probeToolSandbox()), hidden: o.hidden ?? hiddenPaths(o.env, o.secretsFile) };
  const staticTools = await registerStaticTools(o, registry, pidNamespace, confinement);
  const section = manifest.mcp;
  const connection = section ? new McpConnection({ domain, section, dir, hostEnv: o.env, secrets, sandbox: o.sandbox, pidNamespace, confinement, log: log.child({ mcp: true }) }) : undefined;
  const mcp: DomainMcpSource | undefined =
    section && connection
      ? { file: o.loaded.file, domain, section, connection, registry, log, reserved: manifestToolNames(o.loaded),
          onChanged: () => void refresh(),
          hooks: { hostEnv: o.env, sandbox: o.sandbox, pidNamespace, dir, confinement },
        }
      : undefined;
  const discover = async () => (mcp === undefined ? [] : discoverDomainMcpTools(mcp));
  const slot = new ExecutorSlot({
    bus: o.bus,
    log,
    domain,
    // ctx.secrets of every tool of the domain: the manifest tools read their secrets through it
    secrets,
    ...passedExecutorOptions(o),
  });
  const refreshes = new ToolRefreshQueue(log, slot, async () => [...staticTools, ...(await discover())]);
  const refresh = () => refreshes.refresh();

  connection?.onToolsChanged(() => void refresh());
  try {
    await slot.start([...staticTools, ...(await discover())]);
  } catch (err) {
    await connection?.close();
    throw err;
  }
  return {
    domain,
    tools: () => slot.tools(),
    refresh,
    async stop() {
      await refreshes.stop();
      await slot.stop();
      await connection?.close();
    },
  };
}

/** Builds the manifest's CLI and HTTP tools and registers them with the manifest's status. */
async function registerStaticTools(o: DomainExecutorOptions, registry: RegistryClient, pidNamespace: PidNamespace, confinement: ToolConfinement): Promise<ExecutableTool[]> {
  const { manifest, dir } = o.loaded;
  const domain = manifest.domain;
  const tools: ExecutableTool[] = manifest.tools.map((entry) => {
    if (entry.cli) return cliTool(domain, { ...entry, cli: entry.cli }, { hostEnv: o.env, secretSources: manifest.secrets, sandbox: o.sandbox, pidNamespace, dir, confinement });
    return httpTool(domain, { ...entry, http: entry.http! }, { secretSources: manifest.secrets, hooks: { hostEnv: o.env, sandbox: o.sandbox, pidNamespace, dir, confinement } });
  });
  if (tools.length > 0) {
    const r = await registry.register(
      tools.map((t) => t.descriptor),
      manifest.status,
    );
    if (!r.ok) throw new AdapterConfigError(`${o.loaded.file}: the registry refused the tools: ${r.error.code}: ${r.error.message}`);
  }
  return tools;
}
