import { z } from "zod";
import { WardenErrorSchema } from "./errors.js";
import { ArtifactRefSchema } from "./events.js";
import { JsonValueSchema } from "./json.js";

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

const MODEL_TEXT_LIMIT = 4_000;

/** Renders a result as a short string for a model; an error is an answer it can act on. */
export function toModelMessage(result: ToolResult): string {
  if (result.status === "awaiting_approval") {
    return `PENDING: this call needs a person's approval (approvalId ${result.approvalId ?? "?"}); it has not run yet.`;
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
  const text = body.length > MODEL_TEXT_LIMIT ? `${body.slice(0, MODEL_TEXT_LIMIT)}… (cut for the model)` : body;
  return `${result.truncated ? "PREVIEW " : ""}${text}${refs}`;
}
