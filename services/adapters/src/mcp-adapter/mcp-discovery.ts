import type { Logger } from "@warden/bus";
import { ok, type Outcome } from "@warden/contracts/errors";
import { type ToolDescriptor } from "@warden/contracts/descriptor";
import { chooseVersion } from "../domain/mcp-versions.js";
import type { McpSection } from "../manifest/manifest-schema.js";
import type { RegistryClient } from "@warden/sdk";
import { catalogMcpTools, type McpCatalog, type McpDraft } from "./mcp-catalog.js";
import type { McpConnection } from "./mcp-connection.js";

export interface DiscoveredTool extends McpDraft {
  /** The draft at its chosen version. */
  readonly descriptor: ToolDescriptor;
  /** True when this version was first registered now (as `discovered`). */
  readonly isNew: boolean;
}

export interface McpDiscovery {
  readonly tools: DiscoveredTool[];
  readonly skipped: McpCatalog["skipped"];
  /** Older versions disabled because the server now describes the tool differently. */
  readonly disabled: { readonly name: string; readonly version: string }[];
}

export interface DiscoverOptions {
  readonly domain: string;
  readonly section: McpSection;
  readonly connection: McpConnection;
  readonly registry: RegistryClient;
  readonly log: Logger;
  /** Tool names the manifest defines itself. */
  readonly reserved: ReadonlySet<string>;
}

/**
 * Lists a server's tools and registers them: a tool the registry already holds with the same
 * content keeps its version and status; a new or changed one gets the next version as
 * `discovered` (an operator enables it), and enabled versions it replaces are disabled.
 */
export async function discoverMcpTools(o: DiscoverOptions): Promise<Outcome<McpDiscovery>> {
  const infos = await o.connection.listTools();
  const catalog = catalogMcpTools(o.domain, o.section, infos, o.reserved);
  for (const s of catalog.skipped) o.log.warn({ mcpTool: s.mcpName, reason: s.reason }, "mcp tool skipped");
  if (catalog.drafts.length === 0) return ok({ tools: [], skipped: catalog.skipped, disabled: [] });
  const records = await o.registry.list();
  if (!records.ok) return records;
  const tools: DiscoveredTool[] = [];
  const superseded: { name: string; version: string }[] = [];
  for (const d of catalog.drafts) {
    const choice = chooseVersion(d.draft, records.value, o.section.firstVersion);
    tools.push({ ...d, descriptor: { ...d.draft, version: choice.version }, isNew: choice.isNew });
    for (const version of choice.superseded) superseded.push({ name: d.draft.name, version });
  }
  const registered = await o.registry.register(
    tools.map((t) => t.descriptor),
    "discovered",
  );
  if (!registered.ok) return registered;
  for (const t of tools.filter((x) => x.isNew)) {
    o.log.info({ tool: t.descriptor.name, version: t.descriptor.version, grade: t.descriptor.grade }, "mcp tool discovered, waiting to be enabled");
  }
  const disabled: McpDiscovery["disabled"] = [];
  for (const s of superseded) {
    const r = await o.registry.setStatus({ name: s.name, version: s.version, status: "disabled" });
    if (!r.ok) return r;
    disabled.push(s);
    o.log.warn({ tool: s.name, version: s.version }, "mcp tool changed on the server, older version disabled");
  }
  return ok({ tools, skipped: catalog.skipped, disabled });
}
