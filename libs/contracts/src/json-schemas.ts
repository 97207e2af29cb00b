import { z } from "zod";
import { DecisionRequestSchema } from "./approval.js";
import { ToolDescriptorSchema } from "./descriptor.js";
import { EVENT_SCHEMAS, WardenEventSchema } from "./events.js";
import { PolicyDocumentSchema } from "./policy-document.js";
import { ToolResultSchema } from "./results.js";

/** The JSON Schema files served to clients in other languages, by file name. */
export function jsonSchemaFiles(): Record<string, string> {
  const schemas: Record<string, z.ZodType> = {
    "tool-descriptor": ToolDescriptorSchema,
    "warden-event": WardenEventSchema,
    "tool-result": ToolResultSchema,
    "policy-document": PolicyDocumentSchema,
    "decision-request": DecisionRequestSchema,
    ...Object.fromEntries(Object.entries(EVENT_SCHEMAS).map(([k, v]) => [`event-${k}`, v])),
  };
  const out: Record<string, string> = {};
  for (const [name, schema] of Object.entries(schemas)) {
    const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" });
    out[`${name}.json`] = `${JSON.stringify({ $id: `https://warden.dev/schema/${name}.json`, ...json }, null, 2)}\n`;
  }
  return out;
}
