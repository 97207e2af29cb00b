import type { Bus, Logger } from "@warden/bus";
import type { Outcome } from "@warden/contracts/errors";
import type { LoadedManifest } from "../manifest/load-manifests.js";
import { fullToolName } from "../manifest/tool-descriptor.js";
import { SecretStore } from "@warden/executor";
import { createRegistryClient } from "@warden/sdk";
import type { NetworkSandbox } from "../sandbox/network-sandbox.js";
import { hiddenPaths } from "../sandbox/hidden-paths.js";
import { probeToolSandbox, type ToolSandbox } from "../sandbox/tool-sandbox.js";
import { McpConnection } from "./mcp-connection.js";
import { discoverMcpTools, type McpDiscovery } from "./mcp-discovery.js";

export interface RegisterMcpOptions {
  readonly bus: Bus;
  readonly log: Logger;
  readonly loaded: LoadedManifest;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly secretsFile?: string | undefined;
  readonly sandbox: NetworkSandbox;
  /** The tools' sandbox the server runs in for its discovery; probed when not given. */
  readonly toolSandbox?: ToolSandbox;
}

/**
 * Starts a manifest's MCP server once, registers what it offers (new versions as `discovered`)
 * and stops it: what `warden register --discover` does ahead of the executor.
 */
export async function registerMcpTools(o: RegisterMcpOptions): Promise<Outcome<McpDiscovery>> {
  const { manifest, dir } = o.loaded;
  if (manifest.mcp === undefined) return { ok: true, value: { tools: [], skipped: [], disabled: [] } };
  const secrets = new SecretStore(manifest.secrets, { env: o.env, secretsFile: o.secretsFile });
  const connection = new McpConnection({ domain: manifest.domain, section: manifest.mcp, dir, hostEnv: o.env, secrets,
    sandbox: o.sandbox,
    confinement: { toolSandbox: o.toolSandbox ?? (await probeToolSandbox()), hidden: hiddenPaths(o.env, o.secretsFile) },
    log: o.log,
  });
  try {
    return await discoverMcpTools({
      domain: manifest.domain,
      section: manifest.mcp,
      connection,
      registry: createRegistryClient(o.bus, { patienceMs: 5_000 }),
      log: o.log,
      reserved: new Set(manifest.tools.map((t) => fullToolName(manifest.domain, t.name))),
    });
  } finally {
    await connection.close();
  }
}
