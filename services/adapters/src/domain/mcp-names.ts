import { createHash } from "node:crypto";

const MAX_NAME = 64;

/**
 * A capability segment for an MCP tool name: letters, digits, `-` and single `_` between them
 * (so `.` -> `__` wire names round-trip). Names that collide or are too long get a short hash.
 */
export function sanitiseToolName(mcpName: string): string {
  let s = mcpName
    .replace(/[^A-Za-z0-9_-]+/g, "-")
    .replace(/_+/g, "_")
    .replace(/^[_-]+|[_-]+$/g, "")
    .replace(/-_|_-/g, "-");
  if (s === "") s = "tool";
  return s;
}

/** Capability names for a server's tools, in `<domain>.<capability>` limits, unique and stable. */
export function capabilityNames(domain: string, mcpNames: readonly string[]): Map<string, string> {
  const room = MAX_NAME - domain.length - 1;
  const base = new Map(mcpNames.map((n) => [n, sanitiseToolName(n)]));
  const counts = new Map<string, number>();
  for (const s of base.values()) counts.set(s, (counts.get(s) ?? 0) + 1);
  const out = new Map<string, string>();
  for (const [name, s] of base) {
    // a suffix only where needed: a unique, short name stays as the server spells it
    if (s.length <= room && counts.get(s) === 1) {
      out.set(name, s);
      continue;
    }
    const suffix = `-${createHash("sha256").update(name).digest("hex").slice(0, 6)}`;
    out.set(name, `${s.slice(0, Math.max(1, room - suffix.length)).replace(/[_-]+$/, "")}${suffix}`);
  }
  return out;
}
