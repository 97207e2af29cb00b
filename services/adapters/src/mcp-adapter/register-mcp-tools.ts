import type { Outcome } from "@warden/contracts/errors";
import { manifestToolNames, type ManifestRunOptions } from "../manifest-run-options.js";
import { SecretStore } from "@warden/executor";
import { createRegistryClient } from "@warden/sdk";
import { hiddenPaths } from "../sandbox/hidden-paths.js";
import { probeToolSandbox, type ToolSandbox } from "../sandbox/tool-sandbox.js";
import { McpConnection } from "./mcp-connection.js";
import { discoverMcpTools, type McpDiscovery } from "./mcp-discovery.js";

export interface RegisterMcpOptions extends ManifestRunOptions {
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
      reserved: manifestToolNames(o.loaded),
    });
  } finally {
    await connection.close();
  }
}
