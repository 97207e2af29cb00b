import { readFile } from "node:fs/promises";
import { SubagentDefinitionError, type SubagentDescriptorInput } from "./descriptor.js";

/** Reads subagent descriptors from a JSON file: an array, or `{ "agents": [...] }`. */
export async function loadAgentsFile(path: string): Promise<SubagentDescriptorInput[]> {
  let value: unknown;
  try {
    value = JSON.parse(await readFile(path, "utf8"));
  } catch (err) {
    throw new SubagentDefinitionError(`WARDEN_SUBAGENTS_FILE ${path}: ${(err as Error).message}`);
  }
  const list = Array.isArray(value) ? value : (value as { agents?: unknown } | null)?.agents;
  if (!Array.isArray(list) || list.length === 0) {
    throw new SubagentDefinitionError(`WARDEN_SUBAGENTS_FILE ${path}: expected a non-empty array of subagent descriptors (or { "agents": [...] })`);
  }
  // each entry is checked by the service against SubagentDescriptorSchema
  return list as SubagentDescriptorInput[];
}
