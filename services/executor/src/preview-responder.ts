import { readEvent, serveRpc, type Bus, type Logger } from "@warden/bus";
import { executorPreviewSubject } from "@warden/contracts/subjects";
import { wardenError } from "@warden/contracts/errors";
import { PreviewRequestSchema, type Reply } from "@warden/contracts/descriptor";
import type { ExecutableTool } from "./define-tool.js";
import { runPreview } from "./run-preview.js";
import type { SecretStore } from "./secret-store.js";

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
    const { tool: name, version, descriptorHash, callId } = req.data;
    // whose credentials and which args come from the policy's decision on the stream, not from the
    // request: the asker names the call, the stage that checked it says who it runs for
    const checked = await readEvent(deps.bus, deps.domain, callId, "ToolPolicyChecked");
    if (checked === undefined || checked.tool !== name || checked.data.version !== version || checked.data.descriptorHash !== descriptorHash || checked.data.decision !== "require_approval") {
      return { ok: false, error: wardenError("NOT_FOUND", `call ${callId} has no decision waiting for approval on ${name}@${version}: a dry run is only for such a call`) };
    }
    const { args, onBehalfOf } = checked.data;
    const principal = checked.principal;
    const found = deps.tools.get(name);
    const tool = found?.descriptor.version === version ? found : undefined;
    if (tool === undefined) return { ok: false, error: wardenError("UNKNOWN_TOOL", `this executor does not run ${name}@${version}`) };
    if (tool.descriptorHash !== descriptorHash) return { ok: false, error: wardenError("DESCRIPTOR_CHANGED", `${name}@${version} here has another descriptor than the call is bound to`) };
    const log = deps.log.child({ callId, tool: name, preview: true });
    const answer = await runPreview(tool, args, { callId, principal, onBehalfOf: onBehalfOf ?? principal, log, secrets: deps.secrets });
    if (!answer.ok) {
      log.info({ code: answer.error.code }, "preview failed");
      return answer;
    }
    return { ok: true, value: { data: answer.value.data, executorId: deps.executorId } };
  });
}
