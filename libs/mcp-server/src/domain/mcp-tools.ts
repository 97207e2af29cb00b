import { MAX_JSON_DEPTH } from "@warden/contracts/subjects";
import { fail, type Outcome } from "@warden/contracts/errors";
import { JsonObjectSchema, safeParseGuarded, type JsonObject, type JsonValue } from "@warden/contracts/json";
import { z } from "zod";

/**
 * One tool as an MCP client lists it: the registry's `mcp` rendering of a ToolView entry (wire
 * name, title, description, input and output JSON Schemas, hints from the grade and flags).
 */
export const McpToolSchema = z.object({
  name: z.string(),
  title: z.string(),
  description: z.string(),
  inputSchema: JsonObjectSchema,
  outputSchema: JsonObjectSchema.optional(),
  annotations: z.object({
    readOnlyHint: z.boolean(),
    destructiveHint: z.boolean(),
    idempotentHint: z.boolean(),
    openWorldHint: z.boolean(),
  }),
});
export type McpTool = z.infer<typeof McpToolSchema>;

const McpToolListSchema = z.object({ tools: z.array(McpToolSchema) });

/** MCP needs an input schema whose root is an object schema; a descriptor's may leave `type` out. */
function objectRoot(schema: JsonObject): JsonObject & { type: "object" } {
  return { ...schema, type: "object" };
}

/** The shape `tools/list` answers with (MCP's Tool), from one entry. */
export interface ListedTool {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly inputSchema: JsonObject & { type: "object" };
  readonly outputSchema?: JsonObject & { type: "object" };
  readonly annotations: McpTool["annotations"] & { readonly title: string };
  /**
   * Every governed call may wait for a person (policy decides per call, not per tool), so a client
   * with tasks may ask for one; a client without gets a bounded wait and a handle resource.
   */
  readonly execution: { readonly taskSupport: "optional" };
}

/** Reads the registry's `mcp` rendering of a view (a reply from outside: validated, never trusted). */
export function parseMcpToolList(formatted: JsonValue): Outcome<McpTool[]> {
  // each schema sits three levels down: { tools: [ { inputSchema } ] }
  const parsed = safeParseGuarded(McpToolListSchema, formatted, MAX_JSON_DEPTH + 3);
  if (!parsed.ok) return fail("INTERNAL", `the registry's MCP tool list is not readable: ${parsed.code}: ${parsed.reason}`);
  return { ok: true, value: parsed.value.tools };
}

export function toListedTool(t: McpTool): ListedTool {
  return {
    name: t.name,
    title: t.title,
    description: t.description,
    inputSchema: objectRoot(t.inputSchema),
    ...(t.outputSchema === undefined ? {} : { outputSchema: objectRoot(t.outputSchema) }),
    annotations: { title: t.title, ...t.annotations },
    execution: { taskSupport: "optional" },
  };
}
