import { z } from "zod";
import { ToolDescriptorSchema } from "./descriptor.js";
import { WardenErrorSchema } from "./errors.js";
import { JsonValueSchema } from "./json.js";
import { ToolViewSchema } from "./tool-view.js";

/**
 * The registry's request-reply protocol (docs/architecture.md): one request and one reply schema
 * per subject. Every answer is wrapped in `ReplySchema`; the schemas here are its `value`.
 */

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

export type RegisterRequest = z.infer<typeof RegisterRequestSchema>;

/** One version named in a register request, as the registry now holds it. */
export const RegisteredToolSchema = z.object({
  name: z.string(),
  version: z.string(),
  descriptorHash: z.string(),
  status: ToolStatusSchema,
  /** False when this exact content was registered already (its status was kept). */
  created: z.boolean(),
});
export type RegisteredTool = z.infer<typeof RegisteredToolSchema>;

/** `warden.registry.register.<domain>` answers every version of the batch. */
export const RegisterReplySchema = z.object({ registered: z.array(RegisteredToolSchema) });
export type RegisterReply = z.infer<typeof RegisterReplySchema>;

/** `warden.registry.status.<domain>`: one version, or every version when `version` is omitted. */
export const SetStatusRequestSchema = z.object({
  name: z.string(),
  version: z.string().optional(),
  status: ToolStatusSchema,
});
export type SetStatusRequest = z.infer<typeof SetStatusRequestSchema>;

/** The reply of status (the updated records) and of list (every record). */
export const ToolRecordListSchema = z.array(ToolRecordSchema);

/** `warden.registry.list` takes no arguments; extra fields are ignored. */
export const ListToolsRequestSchema = z.object({});

/** `warden.registry.view.<principal>` (the request is ToolViewRequestSchema): the view and its rendering. */
export const ToolViewReplySchema = z.object({ view: ToolViewSchema, formatted: JsonValueSchema });
export type ToolViewReply = z.infer<typeof ToolViewReplySchema>;

/**
 * `warden.registry.changed`: what changed (`tools`: a descriptor or its status; `policy`: the
 * document in force) and the policy version the registry now shows. It names no tool, so it
 * tells a caller nothing its own view would not; a client re-reads its view and compares.
 */
export const RegistryChangedSchema = z.object({
  change: z.enum(["tools", "policy"]),
  policyVersion: z.string(),
});
export type RegistryChanged = z.infer<typeof RegistryChangedSchema>;

/** Every request-reply answer: a value, never an exception across the wire. */
export const ReplySchema = z.discriminatedUnion("ok", [
  z.object({ ok: z.literal(true), value: JsonValueSchema }),
  z.object({ ok: z.literal(false), error: WardenErrorSchema }),
]);
export type Reply = z.infer<typeof ReplySchema>;
