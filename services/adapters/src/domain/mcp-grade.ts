import type { Grade } from "@warden/contracts/descriptor";

/** MCP tool annotations (hints): a server's claims, never trusted to loosen anything on their own. */
export interface McpHints {
  readonly readOnlyHint?: boolean | undefined;
  readonly destructiveHint?: boolean | undefined;
  readonly idempotentHint?: boolean | undefined;
  readonly openWorldHint?: boolean | undefined;
}

export interface GradeAndFlags {
  readonly grade: Grade;
  readonly destructive: boolean;
  readonly idempotent: boolean;
  readonly openWorld: boolean;
}

/**
 * Maps hints to a grade, conservatively. No hints at all: `send` (nothing is known, so a person
 * approves every call and a model never sees it). `readOnlyHint: true`: `read`. Otherwise a missing
 * destructiveHint / openWorldHint counts as true (the MCP defaults), and either makes it `send`;
 * only a tool that says it is neither destructive nor open-world is a `write`.
 */
export function gradeFromHints(hints: McpHints | undefined): GradeAndFlags {
  const h = hints ?? {};
  const any = [h.readOnlyHint, h.destructiveHint, h.idempotentHint, h.openWorldHint].some((x) => x !== undefined);
  if (!any) return { grade: "send", destructive: true, idempotent: false, openWorld: true };
  const openWorld = h.openWorldHint ?? true;
  if (h.readOnlyHint === true) return { grade: "read", destructive: false, idempotent: true, openWorld };
  const destructive = h.destructiveHint ?? true;
  const idempotent = h.idempotentHint ?? false;
  return { grade: destructive || openWorld ? "send" : "write", destructive, idempotent, openWorld };
}
