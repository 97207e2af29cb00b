import { compareVersions } from "@warden/contracts/subjects";
import { type ToolRecord } from "@warden/contracts/descriptor";

/** Groups records by tool name, each group newest version first. */
export function versionsByName(records: Iterable<ToolRecord>): Map<string, ToolRecord[]> {
  const out = new Map<string, ToolRecord[]>();
  for (const r of records) {
    const list = out.get(r.descriptor.name);
    if (list) list.push(r);
    else out.set(r.descriptor.name, [r]);
  }
  for (const list of out.values()) list.sort(newestFirst);
  return out;
}

export function newestFirst(a: ToolRecord, b: ToolRecord): number {
  return compareVersions(b.descriptor.version, a.descriptor.version);
}

/** A call without a pinned version runs the newest enabled version. */
export function newestEnabled(versions: readonly ToolRecord[]): ToolRecord | undefined {
  let best: ToolRecord | undefined;
  for (const r of versions) {
    if (r.status !== "enabled") continue;
    if (best === undefined || compareVersions(r.descriptor.version, best.descriptor.version) > 0) best = r;
  }
  return best;
}
