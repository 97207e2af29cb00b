import { wardenError, type WardenError } from "@warden/contracts/errors";
import { type JsonValue } from "@warden/contracts/json";
import { JsonSchemaValidators, schemaErrorsText } from "@warden/service-kit";
import type { ExecutableTool } from "./define-tool.js";

const validators = new JsonSchemaValidators();

/** Why an output does not match the tool's outputSchema (the failing paths), and the error to record for it. */
export interface OutputSchemaProblem {
  readonly why: string;
  readonly error: WardenError;
}

/**
 * The check of a tool's output against its declared `outputSchema` (what callers and MCP clients
 * were promised): a mismatch is an OUTPUT_INVALID result naming the failing paths, never a crash.
 * The tool did run, so the error is retryable only for an idempotent one. Undefined for a tool
 * that declares no outputSchema.
 */
export function outputSchemaProblems(tool: ExecutableTool): ((output: JsonValue) => OutputSchemaProblem | undefined) | undefined {
  const schema = tool.descriptor.outputSchema;
  if (schema === undefined) return undefined;
  return (output) => {
    const check = validators.validate(tool.descriptorHash, schema, output);
    if (check.kind === "valid") return undefined;
    const why = check.kind === "broken" ? `its outputSchema does not compile: ${check.message}` : schemaErrorsText(check.errors);
    const error = {
      ...wardenError("OUTPUT_INVALID", `the tool ran, but its output does not match its outputSchema: ${why}`, check.kind === "invalid" ? { errors: check.errors.map((e) => ({ ...e })) } : {}),
      retryable: tool.descriptor.idempotent,
    };
    return { why, error };
  };
}
