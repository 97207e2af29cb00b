import { toWireName } from "@warden/contracts/subjects";
import { type Grade, type ToolDescriptor, type ToolView, type ToolViewEntry, type ToolViewFormat } from "@warden/contracts/descriptor";
import { type JsonObject, type JsonValue } from "@warden/contracts/json";

export interface OpenAiTool {
  readonly type: "function";
  readonly function: { readonly name: string; readonly description: string; readonly parameters: JsonObject };
}

/** A function tool of the OpenAI Responses API (flat: no `function` wrapper). */
export interface OpenAiResponsesTool {
  readonly type: "function";
  readonly name: string;
  readonly description: string;
  readonly parameters: JsonObject;
  /** Warden's schemas are not written for strict mode (every property required, no extras). */
  readonly strict: false;
}

export interface AnthropicTool {
  readonly name: string;
  readonly description: string;
  readonly input_schema: JsonObject;
}

export interface McpToolAnnotations {
  readonly readOnlyHint: boolean;
  readonly destructiveHint: boolean;
  readonly idempotentHint: boolean;
  readonly openWorldHint: boolean;
}

export interface McpTool {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly inputSchema: JsonObject;
  /** The descriptor's outputSchema when it describes an object (MCP's structuredContent is one). */
  readonly outputSchema?: JsonObject;
  readonly annotations: McpToolAnnotations;
}

export interface ToolTableRow {
  readonly name: string;
  readonly wireName: string;
  readonly version: string;
  readonly grade: Grade;
  readonly decision: ToolViewEntry["decision"] | "hidden";
  readonly reason: string;
}

/** Looks up the descriptor behind a view entry, for what the entry does not carry (MCP hints). */
export type DescriptorOf = (name: string, version: string) => ToolDescriptor | undefined;

/** Names are wire names everywhere a model reads them: OpenAI and many MCP clients refuse dots. */
export function toOpenAiTools(view: ToolView): OpenAiTool[] {
  return view.tools.map((t) => ({ type: "function", function: { name: t.wireName, description: t.description, parameters: t.inputSchema } }));
}

export function toOpenAiResponsesTools(view: ToolView): OpenAiResponsesTool[] {
  return view.tools.map((t) => ({ type: "function", name: t.wireName, description: t.description, parameters: t.inputSchema, strict: false }));
}

export function toAnthropicTools(view: ToolView): AnthropicTool[] {
  return view.tools.map((t) => ({ name: t.wireName, description: t.description, input_schema: t.inputSchema }));
}

function annotations(t: ToolViewEntry, d: ToolDescriptor | undefined): McpToolAnnotations {
  if (d === undefined) {
    // without the descriptor, assume the worst the grade allows
    return { readOnlyHint: t.grade === "read", destructiveHint: t.grade !== "read", idempotentHint: t.grade === "read", openWorldHint: t.grade === "send" };
  }
  return { readOnlyHint: d.grade === "read", destructiveHint: d.destructive, idempotentHint: d.idempotent, openWorldHint: d.openWorld };
}

function objectOutputSchema(d: ToolDescriptor | undefined): { outputSchema?: JsonObject } {
  const schema = d?.outputSchema;
  return schema !== undefined && schema["type"] === "object" ? { outputSchema: schema } : {};
}

export function toMcpToolList(view: ToolView, descriptorOf?: DescriptorOf): { tools: McpTool[] } {
  return {
    tools: view.tools.map((t) => {
      const d = descriptorOf?.(t.name, t.version);
      return {
        name: t.wireName,
        title: t.title,
        description: t.description,
        inputSchema: t.inputSchema,
        ...objectOutputSchema(d),
        annotations: annotations(t, d),
      };
    }),
  };
}

/** Rows for a CLI table; hidden tools (present when the view was explained) come last. */
export function toToolTable(view: ToolView): ToolTableRow[] {
  const shown: ToolTableRow[] = view.tools.map((t) => ({
    name: t.name,
    wireName: t.wireName,
    version: t.version,
    grade: t.grade,
    decision: t.decision,
    reason: t.reason,
  }));
  const hidden: ToolTableRow[] = view.hidden.map((h) => ({
    name: h.name,
    wireName: toWireName(h.name),
    version: h.version,
    grade: h.grade,
    decision: "hidden",
    reason: `${h.reason}: ${h.detail}`,
  }));
  return [...shown, ...hidden];
}

export function formatToolView(view: ToolView, format: ToolViewFormat, descriptorOf?: DescriptorOf): JsonValue {
  // the shapes are plain JSON; the cast only drops their readonly interfaces
  switch (format) {
    case "openai":
      return toOpenAiTools(view) as unknown as JsonValue;
    case "openai-responses":
      return toOpenAiResponsesTools(view) as unknown as JsonValue;
    case "anthropic":
      return toAnthropicTools(view) as unknown as JsonValue;
    case "mcp":
      return toMcpToolList(view, descriptorOf) as unknown as JsonValue;
    case "table":
      return toToolTable(view) as unknown as JsonValue;
  }
}
