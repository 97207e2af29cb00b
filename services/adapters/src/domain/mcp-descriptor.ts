import { descriptorHash, type Grade, type ToolDescriptor } from "@warden/contracts/descriptor";
import { type JsonObject } from "@warden/contracts/json";
import { gradeFromHints, type McpHints } from "./mcp-grade.js";

/** What an MCP server says about one tool (tools/list). */
export interface McpToolInfo {
  readonly name: string;
  readonly title?: string | undefined;
  readonly description?: string | undefined;
  readonly inputSchema: JsonObject;
  readonly annotations?: (McpHints & { readonly title?: string | undefined }) | undefined;
}

/** Operator settings for discovered tools: grade and flags may be set by hand, limits given. */
export interface McpToolSettings {
  readonly grade?: Grade | undefined;
  readonly destructive?: boolean | undefined;
  readonly idempotent?: boolean | undefined;
  readonly openWorld?: boolean | undefined;
  readonly timeoutMs: number;
  readonly maxOutputBytes: number;
  readonly network?: "none" | "host" | undefined;
  readonly secrets: readonly string[];
}

const MAX_TITLE = 120;
const MAX_DESCRIPTION = 2000;

/** The descriptor of a discovered tool at a given version; its content depends only on what the server says. */
export function mcpDescriptor(
  domain: string,
  capability: string,
  version: string,
  tool: McpToolInfo,
  settings: McpToolSettings,
): ToolDescriptor {
  const hinted = gradeFromHints(tool.annotations);
  const grade = settings.grade ?? hinted.grade;
  const title = clip(tool.title ?? tool.annotations?.title ?? tool.name, MAX_TITLE);
  const said = (tool.description ?? "").trim();
  // the registry wants a description a model can choose by; say where the tool comes from when the server says little
  const description = clip(said.length >= 20 ? said : `MCP tool "${tool.name}"${said ? `: ${said}` : " (the server gave no description)."}`, MAX_DESCRIPTION);
  const d: ToolDescriptor = {
    name: `${domain}.${capability}`,
    version,
    title,
    description,
    inputSchema: tool.inputSchema,
    grade,
    destructive: settings.destructive ?? (grade === "read" ? false : hinted.destructive),
    idempotent: settings.idempotent ?? hinted.idempotent,
    openWorld: settings.openWorld ?? hinted.openWorld,
    scopes: [],
    requiredScopes: [],
    timeoutMs: settings.timeoutMs,
    maxOutputBytes: settings.maxOutputBytes,
  };
  if (settings.network !== undefined) d.network = settings.network;
  if (settings.secrets.length > 0) d.secrets = [...settings.secrets];
  return d;
}

/** The hash of a descriptor's content apart from its version: equal content means the same version may serve it. */
export function contentHash(d: ToolDescriptor): string {
  return descriptorHash({ ...d, version: "0.0.0" });
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
