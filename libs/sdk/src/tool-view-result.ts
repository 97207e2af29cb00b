import type { JsonValue, ToolView } from "@warden/contracts";

/** A caller's ToolView as the registry compiled it, and rendered for a model. */
export interface ToolViewResult {
  readonly view: ToolView;
  /** The view rendered in the requested format (OpenAI tools, Anthropic tools, MCP list, table). */
  readonly formatted: JsonValue;
}
