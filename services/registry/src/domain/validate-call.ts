import { type ToolCallRequested } from "@warden/contracts/events";
import { MAX_REQUEST_BYTES, parseToolName, resolveToolName } from "@warden/contracts/subjects";
import { fail, ok, type Outcome } from "@warden/contracts/errors";
import { type Grade, type ToolRecord } from "@warden/contracts/descriptor";
import type { ArgsCheck } from "./args-validator.js";
import { newestEnabled } from "@warden/policy-engine";

/** What a request is bound to once the registry accepts it. */
export interface ValidatedCall {
  /** The resolved tool name (`kb.search`), whatever the request called it. */
  readonly tool: string;
  readonly version: string;
  readonly descriptorHash: string;
  readonly grade: Grade;
  /** The wire name the request used, when it used one. */
  readonly requestedAs?: string;
}

export interface CallLookup {
  /** Every registered version of a tool, newest first; empty when the name is unknown. */
  versionsOf(name: string): readonly ToolRecord[];
  checkArgs(record: ToolRecord, args: unknown): ArgsCheck;
}

/**
 * The registry's verdict on a request, in order: the subject's principal, the name, the version,
 * the status, the size of the args, the args against the inputSchema.
 */
export function validateCall(req: ToolCallRequested, subjectPrincipal: string | undefined, lookup: CallLookup): Outcome<ValidatedCall> {
  if (subjectPrincipal !== req.principal) {
    return fail(
      "PRINCIPAL_MISMATCH",
      `the request names principal ${req.principal} but was published as ${subjectPrincipal ?? "(none)"}`,
    );
  }
  const name = resolveToolName(req.tool);
  const versions = name === undefined ? [] : lookup.versionsOf(name);
  if (name === undefined || versions.length === 0) {
    return fail("UNKNOWN_TOOL", `unknown tool ${JSON.stringify(req.tool)}: no tool by that name is registered`, { tool: req.tool });
  }
  if (parseToolName(name)?.domain !== req.domain) {
    return fail("UNKNOWN_TOOL", `tool ${name} does not belong to domain ${req.domain}`, { tool: req.tool, domain: req.domain });
  }
  const pinned = req.data.version;
  const record = pinned === undefined ? newestEnabled(versions) : versions.find((r) => r.descriptor.version === pinned);
  if (record === undefined && pinned !== undefined) {
    const known = versions.map((r) => r.descriptor.version).join(", ");
    return fail("UNKNOWN_TOOL", `${name} has no version ${pinned} (registered: ${known})`, { tool: name, version: pinned });
  }
  if (record === undefined || record.status !== "enabled") {
    const what = pinned === undefined ? `${name} has no enabled version` : `${name}@${pinned} is ${record?.status ?? "disabled"}`;
    return fail("TOOL_DISABLED", what, { tool: name });
  }
  const argsBytes = Buffer.byteLength(JSON.stringify(req.data.args), "utf8");
  if (argsBytes > MAX_REQUEST_BYTES) {
    return fail("PAYLOAD_TOO_LARGE", `args are ${argsBytes} bytes of JSON; the limit is ${MAX_REQUEST_BYTES}`, {
      bytes: argsBytes,
      limit: MAX_REQUEST_BYTES,
    });
  }
  const d = record.descriptor;
  const check = lookup.checkArgs(record, req.data.args);
  if (check.kind === "broken") return { ok: false, error: check.error };
  if (check.kind === "invalid") {
    const summary = check.errors.map((e) => `${e.path} ${e.message}`).join("; ");
    return fail("INVALID_ARGS", `args do not match the inputSchema of ${d.name}@${d.version}: ${summary}`, {
      errors: check.errors.map((e) => ({ path: e.path, message: e.message })),
    });
  }
  return ok({
    tool: d.name,
    version: d.version,
    descriptorHash: record.descriptorHash,
    grade: d.grade,
    ...(req.tool === name ? {} : { requestedAs: req.tool }),
  });
}
