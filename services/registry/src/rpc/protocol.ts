import { z } from "zod";
import { JsonValueSchema, ToolRecordSchema, ToolStatusSchema, ToolViewSchema } from "@warden/contracts";

/** Reply bodies of the registry's request-reply subjects (docs/architecture.md). */
export const RegisteredToolSchema = z.object({
  name: z.string(),
  version: z.string(),
  descriptorHash: z.string(),
  status: ToolStatusSchema,
  created: z.boolean(),
});

export const RegisterReplySchema = z.object({ registered: z.array(RegisteredToolSchema) });
export type RegisterReply = z.infer<typeof RegisterReplySchema>;

export const ToolRecordListSchema = z.array(ToolRecordSchema);

export const ToolViewReplySchema = z.object({ view: ToolViewSchema, formatted: JsonValueSchema });
export type ToolViewReply = z.infer<typeof ToolViewReplySchema>;
