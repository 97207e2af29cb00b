import { resolve } from "node:path";
import { descriptorHash, ToolDescriptorSchema, ToolRecordSchema, type ToolDescriptor, type ToolRecord } from "@warden/contracts/descriptor";
import { safeParseGuarded } from "@warden/contracts/json";
import { parse as parseYaml } from "yaml";
import { CliError } from "./errors.js";
import type { CommandIo } from "./io.js";
import { readNamedText } from "./named-file.js";

/**
 * The tools of a `--tools FILE`: `warden tools list --json` (`{ tools: [records] }`), a tool
 * manifest (`domain` + `tools`: its declared tools, as `warden register` would register them),
 * `warden register --dry-run --json` (`{ descriptors }`), or a plain JSON/YAML list of
 * descriptors or records. Descriptors without a record are taken as enabled.
 */
export async function readToolsFile(io: Pick<CommandIo, "cwd">, path: string): Promise<ToolRecord[]> {
  const text = await readNamedText(resolve(io.cwd, path));
  let value: unknown;
  try {
    value = parseYaml(text);
  } catch (err) {
    throw new CliError("INVALID_REQUEST", `${path} is not JSON or YAML: ${(err as Error).message}`);
  }
  if (isObject(value) && "view" in value) {
    throw new CliError(
      "INVALID_REQUEST",
      `${path} is a ToolView (\`warden tools --json\`): it lacks the featureFlag, scopes and requiredScopes policy decides on; give \`warden tools list --json\` (every descriptor) instead`,
    );
  }
  // `register --dry-run --json` names its domain too, beside the descriptors it made
  if (isObject(value) && typeof value["domain"] === "string" && !Array.isArray(value["descriptors"])) return manifestTools(text, path);
  const list = Array.isArray(value) ? value : isObject(value) ? (value["descriptors"] ?? value["tools"]) : undefined;
  if (!Array.isArray(list)) {
    throw new CliError("INVALID_REQUEST", `${path} holds no tools: expected a list of descriptors or records, { tools: [...] }, { descriptors: [...] } or a tool manifest`);
  }
  return list.map((item, i) => toRecord(item, `${path}: tool ${i}`));
}

function toRecord(item: unknown, where: string): ToolRecord {
  if (isObject(item) && "descriptor" in item) {
    const r = safeParseGuarded(ToolRecordSchema, item);
    if (!r.ok) throw new CliError("DESCRIPTOR_INVALID", `${where} is not a valid tool record: ${r.reason}`);
    return r.value;
  }
  const d = safeParseGuarded(ToolDescriptorSchema, item);
  if (!d.ok) throw new CliError("DESCRIPTOR_INVALID", `${where} is not a valid tool descriptor: ${d.reason}`);
  return enabledRecord(d.value);
}

function enabledRecord(d: ToolDescriptor): ToolRecord {
  const at = new Date(0).toISOString();
  return { descriptor: d, descriptorHash: descriptorHash(d), status: "enabled", registeredAt: at, statusChangedAt: at };
}

/** A manifest's declared tools (an MCP server's are only known once it runs: `warden tools list` then). */
async function manifestTools(text: string, path: string): Promise<ToolRecord[]> {
  // the adapters (and the MCP SDK) load only for a manifest
  const { parseManifest, toolDescriptor } = await import("@warden/adapters");
  const parsed = parseManifest(text, path);
  if (!parsed.ok) throw new CliError("DESCRIPTOR_INVALID", `the manifest is invalid:\n${parsed.message}`);
  const m = parsed.manifest;
  return m.tools.map((t) => enabledRecord(ToolDescriptorSchema.parse(toolDescriptor(m.domain, t, m.secrets))));
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
