import { type EventData } from "@warden/contracts/events";
import { OUTPUT_PREVIEW_BYTES } from "@warden/contracts/subjects";
import { wardenError, type WardenError } from "@warden/contracts/errors";
import { type JsonValue } from "@warden/contracts/json";
import type { ExecutableTool, PreparedCall } from "./define-tool.js";
import type { Redactor } from "./domain/redactor.js";
import { shapeOutput, type ShapedOutput } from "./domain/shape-output.js";
import { outputSchemaProblems } from "./output-schema-check.js";
import { runWithTimeout } from "./run-with-timeout.js";
import type { ToolContext } from "./tool-context.js";

/** What a result's checks found, as ToolResultValidated records it (less who and which attempt). */
export type Validation = Omit<EventData<"ToolResultValidated">, "executorId" | "attempt">;

export interface CheckedOutput {
  /** How the output is recorded: inline, as an artifact, or the error a check (or the shaping) made. */
  readonly shaped: ShapedOutput;
  /** Set when a check ran (the tool has an outputSchema or a verify, and its output reached it). */
  readonly validation?: Validation;
}

type Check = Validation["checks"][number];

/**
 * Shapes a run's (redacted) output for the record and checks it, in order: its `outputSchema`
 * (OUTPUT_INVALID), then the tool's own `verify(output, args)` (VERIFY_FAILED), each on the output
 * as it will be recorded. A failed check is an error result, never a crash; the tool did run, so
 * the error is retryable only for an idempotent tool. `redactor` is read after verify ran (it may
 * have asked for secrets) and cleans its reason; verify has `verifyMs` (what is left of the run's
 * time: the handler and its verify share the tool's timeoutMs).
 */
export async function shapeAndCheck(
  tool: ExecutableTool,
  prepared: Extract<PreparedCall, { ok: true }>,
  value: unknown,
  ctx: ToolContext,
  redactor: () => Redactor,
  verifyMs: number = tool.descriptor.timeoutMs,
): Promise<CheckedOutput> {
  const schema = outputSchemaProblems(tool);
  const checks: Check[] = [];
  const shaped = shapeOutput(
    value,
    tool.descriptor.maxOutputBytes,
    OUTPUT_PREVIEW_BYTES,
    schema === undefined
      ? undefined
      : (output) => {
          const problem = schema(output);
          checks.push(problem === undefined ? { check: "outputSchema", ok: true } : { check: "outputSchema", ok: false, message: cut(problem.why) });
          return problem?.error;
        },
  );
  const validation = (error?: WardenError): Validation | undefined =>
    checks.length === 0 ? undefined : { ok: error === undefined, checks, ...(error === undefined ? {} : { error }) };
  if (shaped.kind === "error") return withValidation(shaped, validation(shaped.error));
  if (prepared.verify === undefined) return withValidation(shaped, validation());
  const reason = await verifyReason(prepared.verify, shaped.kind === "inline" ? shaped.output : shaped.value, ctx, verifyMs);
  if (reason === undefined) {
    checks.push({ check: "verify", ok: true });
    return withValidation(shaped, validation());
  }
  const clean = redactor().text(reason);
  checks.push({ check: "verify", ok: false, message: cut(clean) });
  const error: WardenError = { ...wardenError("VERIFY_FAILED", `the tool ran, but its verify check refused the result: ${cut(clean)}`), retryable: tool.descriptor.idempotent };
  return withValidation({ kind: "error", error, bytes: shaped.bytes }, validation(error));
}

/** Why verify refused the output, or undefined when it accepted it; a throw or a timeout is a refusal. */
async function verifyReason(verify: NonNullable<Extract<PreparedCall, { ok: true }>["verify"]>, output: JsonValue, ctx: ToolContext, timeoutMs: number): Promise<string | undefined> {
  const r = await runWithTimeout((signal) => verify(output, { ...ctx, signal }), Math.max(1, timeoutMs));
  if (!r.ok) return `verify did not complete (${r.error.code}: ${r.error.message})`;
  if (typeof r.value === "string") return r.value.trim() === "" ? "verify refused it without a reason" : r.value;
  if (r.value === false) return "verify refused it without a reason";
  return undefined;
}

function withValidation(shaped: ShapedOutput, validation: Validation | undefined): CheckedOutput {
  return validation === undefined ? { shaped } : { shaped, validation };
}

function cut(text: string): string {
  return text.length <= 2000 ? text : `${text.slice(0, 1999)}…`;
}
