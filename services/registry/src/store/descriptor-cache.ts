import { watchJsonMap } from "@warden/bus";
import { toolKey, ToolRecordSchema, type ToolRecord } from "@warden/contracts";
import { newestFirst } from "../domain/tool-versions.js";
import type { KV } from "@warden/bus";

/** Every tool version, kept current by a KV watch so validation never reads KV per call. */
export interface DescriptorCache {
  /** Every registered version of a tool, newest first; empty when unknown. */
  versionsOf(name: string): readonly ToolRecord[];
  get(name: string, version: string): ToolRecord | undefined;
  records(): ToolRecord[];
  /** Resolves true once `ready()` holds (checked on every change), false after the timeout. */
  waitFor(ready: () => boolean, timeoutMs?: number): Promise<boolean>;
  stop(): void;
}

/** `<domain>.<capability>.<major>.<minor>.<patch>` → the tool name. */
function nameOfKey(key: string): string {
  return key.split(".").slice(0, 2).join(".");
}

export async function startDescriptorCache(kv: KV): Promise<DescriptorCache> {
  const byName = new Map<string, Map<string, ToolRecord>>();
  const sorted = new Map<string, readonly ToolRecord[]>();
  const waiters = new Set<() => void>();

  const onChange = (key: string, value: ToolRecord | undefined) => {
    const name = nameOfKey(key);
    let versions = byName.get(name);
    // a record filed under another key than its own name and version is ignored
    if (value !== undefined && toolKey(value.descriptor.name, value.descriptor.version) === key) {
      if (!versions) byName.set(name, (versions = new Map()));
      versions.set(value.descriptor.version, value);
    } else if (versions) {
      versions.delete(key.split(".").slice(2).join("."));
      if (versions.size === 0) byName.delete(name);
    }
    sorted.delete(name);
    for (const check of waiters) check();
  };

  const watch = await watchJsonMap(kv, ToolRecordSchema, onChange);

  return {
    versionsOf(name) {
      let list = sorted.get(name);
      if (list === undefined) {
        list = [...(byName.get(name)?.values() ?? [])].sort(newestFirst);
        sorted.set(name, list);
      }
      return list;
    },
    get(name, version) {
      return byName.get(name)?.get(version);
    },
    records() {
      return [...byName.values()].flatMap((m) => [...m.values()]);
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
