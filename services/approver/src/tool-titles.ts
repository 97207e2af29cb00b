import { kvGetJson, type Bus } from "@warden/bus";
import { BUCKET_TOOLS, parseToolName, toolKey, ToolRecordSchema, VersionSchema } from "@warden/contracts";

/** The title an approver reads: the descriptor's, or the tool name when the registry does not know it. */
export async function toolTitleReader(bus: Bus): Promise<(tool: string, version: string) => Promise<string>> {
  const kv = await bus.kvm.open(BUCKET_TOOLS);
  return async (tool, version) => {
    if (parseToolName(tool) === undefined || !VersionSchema.safeParse(version).success) return tool;
    const entry = await kvGetJson(kv, toolKey(tool, version), ToolRecordSchema);
    return entry?.value.descriptor.title ?? tool;
  };
}
