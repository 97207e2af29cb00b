import { kvGetJson, type Bus } from "@warden/bus";
import { BUCKET_TOOLS, parseToolName, toolKey, VersionSchema } from "@warden/contracts/subjects";
import { ToolRecordSchema, type ToolDescriptor } from "@warden/contracts/descriptor";

/** What the approval card says about the tool: its title, description, flags, and its args schema. */
export interface ToolFacts {
  readonly title: string;
  readonly descriptor?: ToolDescriptor;
}

/** The registered descriptor of a tool version; only the title (the tool name) when the registry does not know it. */
export async function toolFactsReader(bus: Bus): Promise<(tool: string, version: string) => Promise<ToolFacts>> {
  const kv = await bus.kvm.open(BUCKET_TOOLS);
  return async (tool, version) => {
    if (parseToolName(tool) === undefined || !VersionSchema.safeParse(version).success) return { title: tool };
    const entry = await kvGetJson(kv, toolKey(tool, version), ToolRecordSchema);
    return entry === undefined ? { title: tool } : { title: entry.value.descriptor.title, descriptor: entry.value.descriptor };
  };
}
