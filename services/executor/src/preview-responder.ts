import { serveRpc, type Bus, type Logger } from "@warden/bus";
import {
  canonicalJson,
  executorPreviewSubject,
  PREVIEW_MAX_BYTES,
  PREVIEW_TIMEOUT_MS,
  PreviewRequestSchema,
  wardenError,
  type JsonValue,
  type Reply,
} from "@warden/contracts";
import type { ExecutableTool } from "./define-tool.js";
import { redactResult } from "./domain/redact-result.js";
import { runWithTimeout } from "./run-with-timeout.js";
import type { SecretStore } from "./secret-store.js";
import { CallSecrets } from "./tool-secrets.js";

export interface PreviewResponderDeps {
  readonly bus: Bus;
  readonly log: Logger;
  readonly domain: string;
  readonly executorId: string;
  /** By name (one version each). */
  readonly tools: ReadonlyMap<string, ExecutableTool>;
  readonly secrets: SecretStore;
}

/**
 * Answers the approver's `warden.executor.preview.<domain>` (one copy of the domain's executors
 * per request: a queue group): runs the tool's `preview(args)` for a call waiting for approval,
 * bounded in time and size, its output redacted as a result is. Errors are replies, never a crash.
 */
export function startPreviewResponder(deps: PreviewResponderDeps): ReturnType<typeof serveRpc> {
  const queue = `executor-preview-${deps.domain}`;
  return serveRpc(deps.bus, executorPreviewSubject(deps.domain), queue, deps.log, async (payload): Promise<Reply> => {
    const req = PreviewRequestSchema.safeParse(payload);
    if (!req.success) return { ok: false, error: wardenError("INVALID_REQUEST", `bad preview request: ${req.error.issues[0]?.message ?? "invalid"}`) };
    const { tool: name, version, descriptorHash, args, callId, principal } = req.data;
    const found = deps.tools.get(name);
    const tool = found?.descriptor.version === version ? found : undefined;
    if (tool === undefined) return { ok: false, error: wardenError("UNKNOWN_TOOL", `this executor does not run ${name}@${version}`) };
    if (tool.descriptorHash !== descriptorHash) return { ok: false, error: wardenError("DESCRIPTOR_CHANGED", `${name}@${version} here has another descriptor than the call is bound to`) };
    const prepared = tool.preparePreview?.(args);
    if (prepared === undefined) return { ok: false, error: wardenError("NOT_FOUND", `${name}@${version} has no preview`) };
    if (!prepared.ok) return { ok: false, error: wardenError("INVALID_ARGS", prepared.message) };
    const secrets = new CallSecrets(deps.secrets);
    const log = deps.log.child({ callId, tool: name, preview: true });
    const raw = await runWithTimeout((signal) => prepared.run({ signal, callId, principal, log, secrets }), Math.min(tool.descriptor.timeoutMs, PREVIEW_TIMEOUT_MS));
    const result = redactResult(raw, secrets.redactor());
    if (!result.ok) {
      log.info({ code: result.error.code }, "preview failed");
      return { ok: false, error: result.error };
    }
    let text: string;
    try {
      text = canonicalJson(result.value as JsonValue);
    } catch (err) {
      return { ok: false, error: wardenError("OUTPUT_INVALID", `the preview is not JSON: ${(err as Error).message}`) };
    }
    const bytes = Buffer.byteLength(text);
    if (bytes > PREVIEW_MAX_BYTES) return { ok: false, error: wardenError("OUTPUT_TOO_LARGE", `the preview is ${bytes} bytes, more than the card holds (${PREVIEW_MAX_BYTES})`) };
    return { ok: true, value: { data: JSON.parse(text) as JsonValue, executorId: deps.executorId } };
  });
}
