import { wardenError, type Outcome, type WardenError } from "@warden/contracts/errors";
import { type ToolRecord } from "@warden/contracts/descriptor";
import { type JsonObject } from "@warden/contracts/json";
import { JsonSchemaValidators, MAX_SCHEMA_ERRORS, toSchemaErrors, type SchemaError } from "@warden/service-kit";

export type ArgsError = SchemaError;

export type ArgsCheck =
  | { readonly kind: "valid" }
  | { readonly kind: "invalid"; readonly errors: readonly ArgsError[] }
  /** The schema itself does not compile (registration checks this, so only an old record can). */
  | { readonly kind: "broken"; readonly error: WardenError };

/** At most this many errors travel in a rejection: enough to fix the call, not a wall of text. */
export const MAX_ARGS_ERRORS = MAX_SCHEMA_ERRORS;

/** Turns ajv's errors into `{path, message}` pairs a model (or a person) can act on. */
export const toArgsErrors = toSchemaErrors;

/**
 * Validates call args against a tool's inputSchema. Each validator is compiled once per
 * name + version + descriptorHash and kept: versions are immutable, so it never goes stale.
 */
export class ArgsValidators {
  private readonly schemas = new JsonSchemaValidators();

  /** Compiles a schema without keeping it: what registration checks before accepting a descriptor. */
  checkSchema(schema: JsonObject): Outcome<void> {
    return this.schemas.checkSchema(schema);
  }

  validate(record: ToolRecord, args: unknown): ArgsCheck {
    const d = record.descriptor;
    const check = this.schemas.validate(`${d.name}@${d.version}#${record.descriptorHash}`, d.inputSchema, args);
    if (check.kind !== "broken") return check;
    return { kind: "broken", error: wardenError("DESCRIPTOR_INVALID", `the inputSchema of ${d.name}@${d.version} does not compile: ${check.message}`) };
  }

  get size(): number {
    return this.schemas.size;
  }
}

