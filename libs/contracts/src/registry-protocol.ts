import { z } from "zod";
import { ToolDescriptorSchema } from "./descriptor.js";
import { WardenErrorSchema } from "./errors.js";
import { JsonValueSchema } from "./json.js";

export const TOOL_STATUSES = ["enabled", "disabled", "discovered"] as const;
export const ToolStatusSchema = z.enum(TOOL_STATUSES);
export type ToolStatus = z.infer<typeof ToolStatusSchema>;

/** The KV entry of one descriptor version in `warden_tools`. */
export const ToolRecordSchema = z.object({
  descriptor: ToolDescriptorSchema,
  descriptorHash: z.string(),
  status: ToolStatusSchema,
  registeredAt: z.iso.datetime(),
  statusChangedAt: z.iso.datetime(),
});
export type ToolRecord = z.infer<typeof ToolRecordSchema>;

export const RegisterRequestSchema = z.object({
  descriptors: z.array(z.unknown()).min(1),
  /** Status for versions that are new; an existing version keeps its status. */
  initialStatus: ToolStatusSchema.default("enabled"),
});
export type RegisterRequestInput = z.input<typeof RegisterRequestSchema>;

export const SetStatusRequestSchema = z.object({
  name: z.string(),
  version: z.string().optional(),
  status: ToolStatusSchema,
});

/** Every request-reply answer: a value, never an exception across the wire. */
export const ReplySchema = z.discriminatedUnion("ok", [
  z.object({ ok: z.literal(true), value: JsonValueSchema }),
  z.object({ ok: z.literal(false), error: WardenErrorSchema }),
]);
export type Reply = z.infer<typeof ReplySchema>;
