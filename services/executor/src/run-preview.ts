import type { Logger } from "@warden/bus";
import { fail, ok, wardenError, type Outcome } from "@warden/contracts/errors";
import { PREVIEW_MAX_BYTES, redactsPersonalData, PREVIEW_TIMEOUT_MS } from "@warden/contracts/descriptor";
import { canonicalJson, sha256Hex, type JsonValue } from "@warden/contracts/json";
import type { ExecutableTool } from "./define-tool.js";
import { cleanResult } from "./domain/redact-result.js";
import { runWithTimeout } from "./run-with-timeout.js";
import type { SecretStore } from "./secret-store.js";
import { CallSecrets } from "./tool-secrets.js";

/** A dry run's answer: its JSON, and the hash an L5 call's grant binds (`sha256:` of its canonical JSON). */
export interface PreviewAnswer {
  readonly data: JsonValue;
  readonly hash: string;
}

/**
 * Runs a tool's `preview(args)` once: bounded by the tool's `timeoutMs` and PREVIEW_TIMEOUT_MS, its
 * output redacted (and masked of personal data) as a result is, refused past PREVIEW_MAX_BYTES. The one place a dry run runs, for
 * the approver's card and for the executor's check of an L5 grant's `previewHash`, so the two hash
 * the same bytes. Errors are values.
 */
export async function runPreview(
  tool: ExecutableTool,
  args: JsonValue,
  who: { readonly callId: string; readonly principal: string; readonly onBehalfOf: string; readonly log: Logger; readonly secrets: SecretStore },
): Promise<Outcome<PreviewAnswer>> {
  const { name, version } = tool.descriptor;
  const prepared = tool.preparePreview?.(args);
  if (prepared === undefined) return fail("NOT_FOUND", `${name}@${version} has no preview`);
  if (!prepared.ok) return fail("INVALID_ARGS", prepared.message);
  const secrets = new CallSecrets(who.secrets, who.onBehalfOf);
  const raw = await runWithTimeout(
    (signal) => prepared.run({ signal, callId: who.callId, principal: who.principal, onBehalfOf: who.onBehalfOf, log: who.log, secrets }),
    Math.min(tool.descriptor.timeoutMs, PREVIEW_TIMEOUT_MS),
  );
  // the card is recorded as the result is: a tool that masks personal data masks it in its dry run too
  const { result } = cleanResult(raw, secrets.redactor(), redactsPersonalData(tool.descriptor));
  if (!result.ok) return { ok: false, error: result.error };
  let text: string;
  try {
    text = canonicalJson(result.value as JsonValue);
  } catch (err) {
    return { ok: false, error: wardenError("OUTPUT_INVALID", `the preview is not JSON: ${(err as Error).message}`) };
  }
  const bytes = Buffer.byteLength(text);
  if (bytes > PREVIEW_MAX_BYTES) return fail("OUTPUT_TOO_LARGE", `the preview is ${bytes} bytes, more than the card holds (${PREVIEW_MAX_BYTES})`);
  return ok({ data: JSON.parse(text) as JsonValue, hash: `sha256:${sha256Hex(text)}` });
}
