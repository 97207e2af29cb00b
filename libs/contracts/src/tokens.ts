import { z } from "zod";

/** Subject tokens (domain, principal, ids): NATS stores `*`, `>` and `.` literally, so only this alphabet is allowed. */
export const TOKEN_PATTERN = /^[A-Za-z0-9_-]{1,128}$/;

export const TokenSchema = z
  .string()
  .regex(TOKEN_PATTERN, "must match ^[A-Za-z0-9_-]{1,128}$ (no '.', '*', '>' or spaces)");

export function isSafeToken(value: unknown): value is string {
  return typeof value === "string" && TOKEN_PATTERN.test(value);
}

/**
 * A name segment (domain or capability) must also survive the `.` -> `__` wire mapping, so it
 * may not contain `__` nor start or end with `_`.
 */
const SEGMENT = "[A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*";
export const NAME_SEGMENT_PATTERN = new RegExp(`^${SEGMENT}$`);
export const TOOL_NAME_PATTERN = new RegExp(`^(${SEGMENT})\\.(${SEGMENT})$`);

export const DomainSchema = z
  .string()
  .max(40)
  .regex(NAME_SEGMENT_PATTERN, "a domain is letters, digits, '-' and single '_' between them");

export const ToolNameSchema = z
  .string()
  .max(64)
  .regex(TOOL_NAME_PATTERN, "a tool name is <domain>.<capability>, e.g. kb.search");

export type ToolName = z.infer<typeof ToolNameSchema>;

export function parseToolName(name: string): { domain: string; capability: string } | undefined {
  const m = TOOL_NAME_PATTERN.exec(name);
  if (!m || name.length > 64) return undefined;
  return { domain: m[1]!, capability: m[2]! };
}

export const VersionSchema = z
  .string()
  .regex(/^\d+\.\d+\.\d+$/, "a version is MAJOR.MINOR.PATCH, e.g. 1.0.0");

export function compareVersions(a: string, b: string): number {
  const pa = a.split(".").map(Number);
  const pb = b.split(".").map(Number);
  for (let i = 0; i < 3; i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}
