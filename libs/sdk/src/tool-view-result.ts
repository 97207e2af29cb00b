import type { ToolView } from "@warden/contracts/descriptor";
import type { JsonValue } from "@warden/contracts/json";

/** A caller's ToolView as the registry compiled it, and rendered for a model. */
export interface ToolViewResult {
  readonly view: ToolView;
  /** The view rendered in the requested format (OpenAI tools, Anthropic tools, MCP list, table). */
  readonly formatted: JsonValue;
}
