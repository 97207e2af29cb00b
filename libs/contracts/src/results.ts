import { z } from "zod";
import { WardenErrorSchema } from "./errors.js";
import { ArtifactRefSchema } from "./events.js";
import { JsonValueSchema, type JsonValue } from "./json.js";
import { previewJson } from "./preview-json.js";

export const CALL_STATUSES = [
  "succeeded",
  "failed",
  "rejected",
  "awaiting_approval",
  "denied",
  "expired",
  "outcome_unknown",
  "cancelled",
  "pending",
] as const;
export const CallStatusSchema = z.enum(CALL_STATUSES);
export type CallStatus = z.infer<typeof CallStatusSchema>;

/** What a caller gets back: always a value, never an exception. */
export const ToolResultSchema = z.object({
  callId: z.string(),
  ok: z.boolean(),
  status: CallStatusSchema,
  data: JsonValueSchema.optional(),
  error: WardenErrorSchema.optional(),
  requiresConfirm: z.boolean().optional(),
  approvalId: z.string().optional(),
  /** Who may decide a call that waits for a person: the card's deciders, and the requester when it may confirm its own call. */
  deciders: z.array(z.string()).optional(),
  artifacts: z.array(ArtifactRefSchema).optional(),
  truncated: z.boolean().optional(),
});
export type ToolResult = z.infer<typeof ToolResultSchema>;

/** How much of a result's JSON a model is given (characters); the rest is summarised, never cut mid-value. */
export const MODEL_TEXT_LIMIT = 4_000;

/**
 * A result too long for the model, as valid JSON that fits (arrays and objects keep their first
 * items, long strings end in "…": previewJson), then what was left out, so the model can tell a
 * preview from the whole and does not parse half a value.
 */
function cutForModel(data: JsonValue, body: string): string {
  const note = ` (cut for the model: a valid JSON preview of the first items of ${body.length} characters; the rest is not shown)`;
  return `${JSON.stringify(previewJson(data, MODEL_TEXT_LIMIT - note.length))}${note}`;
}

/**
 * Renders a result as a short string for a model; an error is an answer it can act on. A call that
 * waits for a person (a model's send always does) says so and that asking again does not help: the
 * model can neither confirm it nor make it run another way.
 */
export function toModelMessage(result: ToolResult): string {
  if (result.status === "awaiting_approval" || (result.status === "pending" && result.requiresConfirm === true)) {
    const id = result.approvalId ?? "?";
    return (
      `PENDING: this call needs a person's approval (approvalId ${id}); it has not run yet. ` +
      `Only a person can confirm it: do not call it again or try to do the same another way; tell the user it waits for their confirmation.`
    );
  }
  if (!result.ok) {
    const e = result.error;
    const code = e?.code ?? "ERROR";
    const msg = e?.message ?? result.status;
    const retry = e?.retryable ? " You may retry." : " Do not retry the same call unchanged.";
    return `ERROR ${code}: ${msg}.${retry}`;
  }
  const body = JSON.stringify(result.data ?? null);
  const refs = result.artifacts?.length
    ? ` [full output stored as artifact ${result.artifacts.map((a) => a.id).join(", ")}]`
    : "";
  return `${result.truncated ? "PREVIEW " : ""}${body.length > MODEL_TEXT_LIMIT ? cutForModel(result.data ?? null, body) : body}${refs}`;
}
