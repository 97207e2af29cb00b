import { z } from "zod";
import { JsonValueSchema } from "./json.js";
import { TokenSchema, ToolNameSchema, VersionSchema } from "./tokens.js";

/** How long the approver waits for a tool's dry run before it asks the person without one. */
export const PREVIEW_TIMEOUT_MS = 3_000;
/** A dry run's answer larger than this (canonical JSON) is replaced by an OUTPUT_TOO_LARGE error on the card. */
export const PREVIEW_MAX_BYTES = 16 * 1024;

/** What the approver asks an executor on `warden.executor.preview.<domain>`. */
export const PreviewRequestSchema = z.strictObject({
  callId: TokenSchema,
  tool: ToolNameSchema,
  version: VersionSchema,
  /** The descriptor the call is bound to: an executor with another one does not answer for it. */
  descriptorHash: z.string(),
  args: JsonValueSchema,
  principal: TokenSchema,
  /** The principal the call runs for, as the policy decided it (a delegated call's `onBehalfOf`); absent: `principal`. */
  onBehalfOf: TokenSchema.optional(),
});
export type PreviewRequest = z.infer<typeof PreviewRequestSchema>;

/** The executor's answer (the value of an ok reply): the dry run's output, and who ran it. */
export const PreviewReplySchema = z.object({ data: JsonValueSchema, executorId: TokenSchema });
export type PreviewReply = z.infer<typeof PreviewReplySchema>;
