import { isSafeToken } from "@warden/contracts/subjects";

/** The domain a call to an unparseable name is published under; the registry rejects it UNKNOWN_TOOL. */
export const UNRESOLVED_DOMAIN = "unresolved";

const FORBIDDEN_IN_TOOL_NAME = /[*>\s]/;

/** A name with a wildcard or whitespace could never be a tool and must not reach a subject. */
export function isAcceptableToolName(tool: string): boolean {
  return tool.length > 0 && !FORBIDDEN_IN_TOOL_NAME.test(tool);
}

/**
 * The domain a request is published under: the part before the first `.` (a tool name) or, for
 * a wire name, before the first `__`, when that part is a safe subject token.
 */
export function domainOfTool(tool: string): string {
  const dot = tool.indexOf(".");
  const wire = tool.indexOf("__");
  const end = dot >= 0 ? dot : wire;
  if (end <= 0) return UNRESOLVED_DOMAIN;
  const domain = tool.slice(0, end);
  return isSafeToken(domain) ? domain : UNRESOLVED_DOMAIN;
}
