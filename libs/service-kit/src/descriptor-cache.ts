import { kvGetJson, watchJsonMap, type Bus } from "@warden/bus";
import { BUCKET_TOOLS, compareVersions, parseToolName, toolKey, VersionSchema } from "@warden/contracts/subjects";
import { ToolRecordSchema, type ToolRecord } from "@warden/contracts/descriptor";

/** Every tool version of `warden_tools`, kept current by a KV watch so no stage reads KV per call. */
export interface DescriptorCache {
  /** Every registered version of a tool, newest first; empty when unknown. */
  versionsOf(name: string): readonly ToolRecord[];
  /** One version as this copy's watch has it. */
  get(name: string, version: string): ToolRecord | undefined;
  /** One version, read from KV when the watch does not have it yet (it may lag a new version). */
  read(name: string, version: string): Promise<ToolRecord | undefined>;
  records(): ToolRecord[];
  /** Calls `listener` after every change the watch applies; returns what stops it. */
  onChange(listener: () => void): () => void;
  /** Resolves true once `ready()` holds (checked on every change), false after the timeout. */
  waitFor(ready: () => boolean, timeoutMs?: number): Promise<boolean>;
  stop(): void;
}

function newestFirst(a: ToolRecord, b: ToolRecord): number {
  return compareVersions(b.descriptor.version, a.descriptor.version);
}

/** Splits `<domain>.<capability>.<version>` into the tool name and the version. */
function splitKey(key: string): { name: string; version: string } {
  const parts = key.split(".");
  return { name: parts.slice(0, 2).join("."), version: parts.slice(2).join(".") };
}

/** Starts the cache; resolves once every stored version is loaded. */
export async function startDescriptorCache(bus: Bus): Promise<DescriptorCache> {
  const kv = await bus.kvm.open(BUCKET_TOOLS);
  const byName = new Map<string, Map<string, ToolRecord>>();
  const sorted = new Map<string, readonly ToolRecord[]>();
  const waiters = new Set<() => void>();
  const listeners = new Set<() => void>();

  const onChange = (key: string, value: ToolRecord | undefined) => {
    const { name, version } = splitKey(key);
    let versions = byName.get(name);
    // a record filed under another key than its own name and version is ignored
    if (value !== undefined && toolKey(value.descriptor.name, value.descriptor.version) === key) {
      if (!versions) byName.set(name, (versions = new Map()));
      versions.set(value.descriptor.version, value);
    } else if (versions) {
      versions.delete(version);
      if (versions.size === 0) byName.delete(name);
    }
    sorted.delete(name);
    for (const check of waiters) check();
    for (const listener of listeners) listener();
  };

  const watch = await watchJsonMap(kv, ToolRecordSchema, onChange);
  const get = (name: string, version: string) => byName.get(name)?.get(version);

  return {
    versionsOf(name) {
      let list = sorted.get(name);
      if (list === undefined) {
        list = [...(byName.get(name)?.values() ?? [])].sort(newestFirst);
        sorted.set(name, list);
      }
      return list;
    },
    get,
    async read(name, version) {
      // a name that is not a tool name cannot be a KV key either
      if (parseToolName(name) === undefined || !VersionSchema.safeParse(version).success) return undefined;
      const cached = get(name, version);
      if (cached !== undefined) return cached;
      const stored = (await kvGetJson(kv, toolKey(name, version), ToolRecordSchema))?.value;
      return stored !== undefined && stored.descriptor.name === name && stored.descriptor.version === version ? stored : undefined;
    },
    records() {
      return [...byName.values()].flatMap((m) => [...m.values()]);
    },
    onChange(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    waitFor(ready, timeoutMs = 2_000) {
      if (ready()) return Promise.resolve(true);
      return new Promise<boolean>((resolve) => {
        const check = () => {
          if (!ready()) return;
          cleanup();
          resolve(true);
        };
        const timer = setTimeout(() => {
          cleanup();
          resolve(false);
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
      });
    },
    stop() {
      watch.stop();
    },
  };
}
