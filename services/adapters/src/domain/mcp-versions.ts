import { compareVersions } from "@warden/contracts/subjects";
import { type ToolRecord } from "@warden/contracts/descriptor";
import { contentHash } from "./mcp-descriptor.js";
import type { ToolDescriptor } from "@warden/contracts/descriptor";

export interface VersionChoice {
  readonly version: string;
  /** True when no registered version has this content: it must be registered (as discovered). */
  readonly isNew: boolean;
  /** Enabled older versions with other content: the server no longer serves them, so they are disabled. */
  readonly superseded: readonly string[];
}

/**
 * Picks the version for a discovered tool: the registered version with the same content if there
 * is one, else one patch above the newest registered version (or `first`).
 */
export function chooseVersion(draft: ToolDescriptor, existing: readonly ToolRecord[], first: string): VersionChoice {
  const mine = contentHash(draft);
  const same = existing.filter((r) => r.descriptor.name === draft.name);
  const match = same.find((r) => contentHash(r.descriptor) === mine);
  const superseded = same.filter((r) => r.status === "enabled" && contentHash(r.descriptor) !== mine).map((r) => r.descriptor.version);
  if (match) return { version: match.descriptor.version, isNew: false, superseded };
  const newest = same.map((r) => r.descriptor.version).sort(compareVersions).at(-1);
  if (newest === undefined || compareVersions(first, newest) > 0) return { version: first, isNew: true, superseded };
  const [major, minor, patch] = newest.split(".").map(Number) as [number, number, number];
  return { version: `${major}.${minor}.${patch + 1}`, isNew: true, superseded };
}
