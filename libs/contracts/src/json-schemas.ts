import { z } from "zod";
import { DecisionRequestSchema } from "./approval.js";
import { DeliveryReplySchema, DeliveryRequestSchema } from "./approval-delivery.js";
import { ToolDescriptorSchema } from "./descriptor.js";
import { EVENT_SCHEMAS, WardenEventSchema } from "./events.js";
import { PolicyChangedSchema } from "./policy-change.js";
import { PolicyDocumentSchema } from "./policy-document.js";
import {
  ListToolsRequestSchema,
  RegisterReplySchema,
  RegisterRequestSchema,
  RegistryChangedSchema,
  SetStatusRequestSchema,
  ToolRecordListSchema,
  ToolViewReplySchema,
} from "./registry-protocol.js";
import { ToolResultSchema } from "./results.js";
import { ToolViewRequestSchema } from "./tool-view.js";

/** The JSON Schema files served to clients in other languages, by file name. */
export function jsonSchemaFiles(): Record<string, string> {
  const schemas: Record<string, z.ZodType> = {
    "tool-descriptor": ToolDescriptorSchema,
    "warden-event": WardenEventSchema,
    "tool-result": ToolResultSchema,
    "policy-document": PolicyDocumentSchema,
    "policy-changed": PolicyChangedSchema,
    "decision-request": DecisionRequestSchema,
    // a person's durable delivery, so an approver app in another language can follow it
    "delivery-request": DeliveryRequestSchema,
    "delivery-reply": DeliveryReplySchema,
    // the registry protocol, so executors and clients in other languages can register and ask
    "registry-register-request": RegisterRequestSchema,
    "registry-register-reply": RegisterReplySchema,
    "registry-status-request": SetStatusRequestSchema,
    "registry-list-request": ListToolsRequestSchema,
    "registry-tool-records": ToolRecordListSchema,
    "registry-view-request": ToolViewRequestSchema,
    "registry-view-reply": ToolViewReplySchema,
    "registry-changed": RegistryChangedSchema,
    ...Object.fromEntries(Object.entries(EVENT_SCHEMAS).map(([k, v]) => [`event-${k}`, v])),
  };
  const out: Record<string, string> = {};
  for (const [name, schema] of Object.entries(schemas)) {
    const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" });
    out[`${name}.json`] = `${JSON.stringify({ $id: `https://warden.dev/schema/${name}.json`, ...json }, null, 2)}\n`;
  }
  return out;
}
