import { requestRpc, type Bus } from "@warden/bus";
import { type ApprovalRequested, type ToolPolicyChecked } from "@warden/contracts/events";
import { executorPreviewSubject } from "@warden/contracts/subjects";
import { PREVIEW_MAX_BYTES, PREVIEW_TIMEOUT_MS, PreviewReplySchema, type ToolDescriptor } from "@warden/contracts/descriptor";
import { canonicalJson, sha256Hex } from "@warden/contracts/json";

type Preview = NonNullable<ApprovalRequested["data"]["preview"]>;

/**
 * Asks an executor of the call's domain for the tool's dry run (`preview(args)`), for the card.
 * Only a tool whose registered descriptor offers one is asked; no answer in time (the executor's
 * own bound plus half a second), or a failed dry run, is a card with the error instead, never a
 * refused call.
 */
export async function previewForCard(bus: Bus, checked: ToolPolicyChecked, descriptor: ToolDescriptor | undefined, timeoutMs = PREVIEW_TIMEOUT_MS + 500): Promise<Preview | undefined> {
  if (descriptor?.preview !== true) return undefined;
  const d = checked.data;
  const reply = await requestRpc(
    bus,
    executorPreviewSubject(checked.domain),
    { callId: checked.callId, tool: checked.tool, version: d.version, descriptorHash: d.descriptorHash, args: d.args, principal: checked.principal, ...(d.onBehalfOf === undefined ? {} : { onBehalfOf: d.onBehalfOf }) },
    timeoutMs,
  );
  if (!reply.ok) return { error: { code: reply.error.code, message: reply.error.message.slice(0, 2000) } };
  const parsed = PreviewReplySchema.safeParse(reply.value);
  if (!parsed.success) return { error: { code: "INTERNAL", message: "the executor's preview reply is not one" } };
  // whoever answered, the card holds no more than this (an oversized one would fail the request's append)
  const text = canonicalJson(parsed.data.data);
  const bytes = Buffer.byteLength(text);
  if (bytes > PREVIEW_MAX_BYTES) return { error: { code: "OUTPUT_TOO_LARGE", message: `the preview is ${bytes} bytes, more than the card holds (${PREVIEW_MAX_BYTES})` } };
  // an L5 call's grant binds this hash, and its executor runs the dry run again to compare
  return { data: parsed.data.data, executorId: parsed.data.executorId, hash: `sha256:${sha256Hex(text)}` };
}
