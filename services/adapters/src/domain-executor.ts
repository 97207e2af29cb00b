import type { Bus, Logger } from "@warden/bus";
import { startExecutor, type ExecutableTool, type Executor } from "@warden/executor";
import { createRegistryClient } from "@warden/sdk";
import { AdapterConfigError } from "./adapter-errors.js";
import { cliTool } from "./cli-adapter/cli-tool.js";
import { httpTool } from "./http-adapter/http-tool.js";
import type { LoadedManifest } from "./manifest/load-manifests.js";
import { fullToolName } from "./manifest/tool-descriptor.js";
import { describeMcpTool } from "./mcp-adapter/mcp-catalog.js";
import { McpConnection } from "./mcp-adapter/mcp-connection.js";
import { discoverMcpTools, type DiscoveredTool } from "./mcp-adapter/mcp-discovery.js";
import { mcpTool } from "./mcp-adapter/mcp-tool.js";
import type { NetworkSandbox } from "./sandbox/network-sandbox.js";
import { SecretStore } from "./secrets/secret-store.js";

const DEFAULT_REGISTRY_PATIENCE_MS = 30_000;

export interface DomainExecutorOptions {
  readonly bus: Bus;
  readonly log: Logger;
  readonly loaded: LoadedManifest;
  /** The executor's environment: the source of allow-listed variables and `env:` secrets. */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly secretsFile?: string | undefined;
  readonly sandbox: NetworkSandbox;
  /** Approver public keys (base64 SPKI) pinned at provisioning: the only keys a grant is checked against. */
  readonly approverKeys?: readonly string[];
  readonly concurrency?: number;
  /** How long to keep asking a registry that answers a retryable error (it may start after us; default 30 s). */
  readonly registryPatienceMs?: number;
  /** Passed to the executor kit (tests shorten it). */
  readonly ackWaitMs?: number;
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

  const staticTools: ExecutableTool[] = manifest.tools.map((entry) => {
    if (entry.cli) return cliTool(domain, { ...entry, cli: entry.cli }, { hostEnv: o.env, secrets, sandbox: o.sandbox, dir });
    return httpTool(domain, { ...entry, http: entry.http! }, { secrets });
  });
  if (staticTools.length > 0) {
    const r = await registry.register(
      staticTools.map((t) => t.descriptor),
      manifest.status,
    );
    if (!r.ok) throw new AdapterConfigError(`${o.loaded.file}: the registry refused the tools: ${r.error.code}: ${r.error.message}`);
  }

  const section = manifest.mcp;
  const connection = section ? new McpConnection({ domain, section, dir, hostEnv: o.env, secrets, sandbox: o.sandbox, log: log.child({ mcp: true }) }) : undefined;
  const reserved = new Set(manifest.tools.map((t) => fullToolName(domain, t.name)));
  let executor: Executor | undefined;
  let running = new Map<string, string>();
  let stopped = false;
  let queue: Promise<void> = Promise.resolve();

  const discover = async (): Promise<ExecutableTool[]> => {
    if (!connection || !section) return [];
    let found: Awaited<ReturnType<typeof discoverMcpTools>>;
    try {
      found = await discoverMcpTools({ domain, section, connection, registry, log, reserved });
    } catch (err) {
      throw new AdapterConfigError(`${o.loaded.file}: the MCP server cannot be used: ${(err as Error).message}`, { cause: err });
    }
    if (!found.ok) throw new AdapterConfigError(`${o.loaded.file}: MCP discovery failed: ${found.error.code}: ${found.error.message}`);
    return found.value.tools.flatMap((t) => toExecutable(t));
  };
  const toExecutable = (t: DiscoveredTool): ExecutableTool[] => {
    try {
      return [
        mcpTool({
          descriptor: t.descriptor,
          mcpName: t.mcpName,
          connection: connection!,
          describe: (info) => describeMcpTool(domain, section!, info, t.capability, t.descriptor.version),
          onChanged: () => void refresh(),
        }),
      ];
    } catch (err) {
      log.warn({ mcpTool: t.mcpName, err }, "mcp tool skipped: its inputSchema does not compile");
      return [];
    }
  };
  const start = async (tools: ExecutableTool[]) => {
    if (tools.length === 0) {
      log.warn("no tools to run");
      return;
    }
    executor = await startExecutor({
      bus: o.bus,
      log,
      domain,
      tools,
      initialStatus: "discovered",
      ...(o.concurrency === undefined ? {} : { concurrency: o.concurrency }),
      ...(o.ackWaitMs === undefined ? {} : { ackWaitMs: o.ackWaitMs }),
      ...(o.approverKeys === undefined ? {} : { approverKeys: o.approverKeys }),
    });
    running = new Map(tools.map((t) => [t.descriptor.name, t.descriptor.version]));
  };
  const refresh = (): Promise<void> => {
    queue = queue.then(async () => {
      if (stopped) return;
      let mcp: ExecutableTool[];
      try {
        mcp = await discover();
      } catch (err) {
        log.error({ err }, "mcp rediscovery failed, keeping the running tools");
        return;
      }
      const next = [...staticTools, ...mcp];
      const same = next.length === running.size && next.every((t) => running.get(t.descriptor.name) === t.descriptor.version);
      if (same || stopped) return;
      log.info({ tools: next.map((t) => `${t.descriptor.name}@${t.descriptor.version}`) }, "mcp tools changed, restarting the executor");
      await executor?.stop();
      executor = undefined;
      await start(next);
    }).catch((err: unknown) => {
      // logged here so that the queue never rejects: the next refresh must still run
      log.error({ err }, "restarting the executor with changed mcp tools failed");
    });
    return queue;
  };

  connection?.onToolsChanged(() => void refresh());
  try {
    await start([...staticTools, ...(await discover())]);
  } catch (err) {
    await connection?.close();
    throw err;
  }
  return {
    domain,
    tools: () => running,
    refresh,
    async stop() {
      stopped = true;
      await queue;
      await executor?.stop();
      await connection?.close();
    },
  };
}
