import type { ExecutableTool } from "@warden/executor";
import { AdapterConfigError } from "./adapter-errors.js";
import type { HookCommandDeps } from "./hooks/hook-command.js";
import { manifestHooks } from "./hooks/manifest-hooks.js";
import { describeMcpTool } from "./mcp-adapter/mcp-catalog.js";
import { discoverMcpTools, type DiscoveredTool, type DiscoverOptions } from "./mcp-adapter/mcp-discovery.js";
import { mcpTool } from "./mcp-adapter/mcp-tool.js";

export interface DomainMcpSource extends DiscoverOptions {
  /** The manifest file, named in errors. */
  readonly file: string;
  /** Called when a tool sees the server changed it (right before a call). */
  readonly onChanged: () => void;
  /** Where the tools' preCall, verify and postCall commands run. */
  readonly hooks: HookCommandDeps;
}

/** Lists the MCP server's tools, registers new versions, and makes each one runnable. */
export async function discoverDomainMcpTools(s: DomainMcpSource): Promise<ExecutableTool[]> {
  let found: Awaited<ReturnType<typeof discoverMcpTools>>;
  try {
    found = await discoverMcpTools(s);
  } catch (err) {
    throw new AdapterConfigError(`${s.file}: the MCP server cannot be used: ${(err as Error).message}`, { cause: err });
  }
  if (!found.ok) throw new AdapterConfigError(`${s.file}: MCP discovery failed: ${found.error.code}: ${found.error.message}`);
  return found.value.tools.flatMap((t) => executableOf(s, t));
}

/** The tool, or none when its inputSchema does not compile (the others still run). */
function executableOf(s: DomainMcpSource, t: DiscoveredTool): ExecutableTool[] {
  const override = s.section.tools[t.mcpName] ?? {};
  // a hook that cannot run here (a missing root, no network sandbox) is the operator's to fix: refused at start
  const hooks = manifestHooks(t.descriptor.name, override, undefined, s.hooks, async () => s.connection.redactor);
  try {
    return [
      mcpTool({
        descriptor: t.descriptor,
        mcpName: t.mcpName,
        connection: s.connection,
        describe: (info) => describeMcpTool(s.domain, s.section, info, t.capability, t.descriptor.version),
        onChanged: s.onChanged,
        hooks,
        ...(override.preview === undefined ? {} : { dryRun: { section: s.section, preview: override.preview } }),
      }),
    ];
  } catch (err) {
    s.log.warn({ mcpTool: t.mcpName, err }, "mcp tool skipped: its inputSchema does not compile");
    return [];
  }
}
