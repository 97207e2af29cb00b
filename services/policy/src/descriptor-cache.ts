import { kvGetJson, watchJsonMap, type Bus } from "@warden/bus";
import { BUCKET_TOOLS, parseToolName, toolKey, ToolRecordSchema, VersionSchema, type ToolRecord } from "@warden/contracts";

export interface DescriptorCache {
  get(tool: string, version: string): Promise<ToolRecord | undefined>;
  stop(): void;
}

/** Tool records from `warden_tools`, kept current by a KV watch; a miss reads KV (the watch may lag a new version). */
export async function startDescriptorCache(bus: Bus): Promise<DescriptorCache> {
  const kv = await bus.kvm.open(BUCKET_TOOLS);
  const watch = await watchJsonMap(kv, ToolRecordSchema);
  return {
    async get(tool, version) {
      // a name that is not a tool name cannot be a KV key either
      if (parseToolName(tool) === undefined || !VersionSchema.safeParse(version).success) return undefined;
      const key = toolKey(tool, version);
      return watch.map.get(key) ?? (await kvGetJson(kv, key, ToolRecordSchema))?.value;
    },
    stop: () => watch.stop(),
  };
}
