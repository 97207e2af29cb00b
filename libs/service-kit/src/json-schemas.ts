import { Ajv, type AnySchemaObject, type ErrorObject, type Options, type ValidateFunction } from "ajv";
import { Ajv2019 } from "ajv/dist/2019.js";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { fail, ok, type Outcome } from "@warden/contracts/errors";
import { type JsonObject } from "@warden/contracts/json";

// ajv-formats is CommonJS: under NodeNext its default import is the module object, which is the plugin itself.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

/** A value that fails a schema: where (JSON-pointer-ish, `/` is the value itself) and why. */
export interface SchemaError {
  readonly path: string;
  readonly message: string;
}

/** At most this many errors travel in a refusal: enough to fix the value, not a wall of text. */
export const MAX_SCHEMA_ERRORS = 20;

export type SchemaCheck =
  | { readonly kind: "valid" }
  | { readonly kind: "invalid"; readonly errors: readonly SchemaError[] }
  /** The schema itself does not compile (registration checks descriptors, so only an old record can). */
  | { readonly kind: "broken"; readonly message: string };

type Draft = "draft-07" | "2019-09" | "2020-12";

const OPTIONS: Options = {
  allErrors: true,
  // descriptors come from many teams and MCP servers: unknown keywords are annotations, not bugs
  strict: false,
  logger: false,
  // a schema's $id must not be remembered across versions, or a new version with the same $id could not compile
  addUsedSchema: false,
};

function draftOf(schema: JsonObject): Draft {
  const declared = schema["$schema"];
  if (typeof declared !== "string") return "draft-07";
  if (declared.includes("2020-12")) return "2020-12";
  if (declared.includes("2019-09")) return "2019-09";
  return "draft-07";
}

/** Turns ajv's errors into `{path, message}` pairs a model (or a person) can act on. */
export function toSchemaErrors(errors: readonly ErrorObject[] | null | undefined): SchemaError[] {
  return (errors ?? []).slice(0, MAX_SCHEMA_ERRORS).map((e) => {
    const params = e.params as Record<string, unknown>;
    let path = e.instancePath;
    // a missing or extra property is reported on its parent; name the property itself
    if (e.keyword === "required" && typeof params["missingProperty"] === "string") {
      path = `${path}/${escapePointer(params["missingProperty"])}`;
    } else if (e.keyword === "additionalProperties" && typeof params["additionalProperty"] === "string") {
      path = `${path}/${escapePointer(params["additionalProperty"])}`;
    }
    return { path: path === "" ? "/" : path, message: messageOf(e, params) };
  });
}

function messageOf(e: ErrorObject, params: Record<string, unknown>): string {
  if (e.keyword === "required") return "is required";
  if (e.keyword === "additionalProperties") return "is not an allowed property";
  if (e.keyword === "enum" && Array.isArray(params["allowedValues"])) {
    return `must be one of ${params["allowedValues"].map((v) => JSON.stringify(v)).join(", ")}`;
  }
  return e.message ?? `fails ${e.keyword}`;
}

function escapePointer(segment: string): string {
  return segment.replace(/~/g, "~0").replace(/\//g, "~1");
}

/**
 * The one way Warden checks a value against a tool's JSON Schema (ajv with formats, the draft the
 * schema declares; draft-07 when it declares none): the registry for call args, the approver for
 * edited args, the executor for outputs. A validator is compiled once per key (a tool version's
 * descriptor hash: versions are immutable, so it never goes stale) and kept.
 */
export class JsonSchemaValidators {
  private readonly ajvs = new Map<Draft, Ajv>();
  private readonly compiled = new Map<string, ValidateFunction>();

  /** Compiles a schema without keeping it: what registration checks before accepting a descriptor. */
  checkSchema(schema: JsonObject): Outcome<void> {
    try {
      this.ajv(draftOf(schema)).compile(schema as AnySchemaObject);
      return ok(undefined);
    } catch (err) {
      return fail("DESCRIPTOR_INVALID", `schema does not compile: ${(err as Error).message}`);
    }
  }

  validate(key: string, schema: JsonObject, value: unknown): SchemaCheck {
    let fn = this.compiled.get(key);
    if (fn === undefined) {
      try {
        fn = this.ajv(draftOf(schema)).compile(schema as AnySchemaObject);
      } catch (err) {
        return { kind: "broken", message: (err as Error).message };
      }
      this.compiled.set(key, fn);
    }
    return fn(value) ? { kind: "valid" } : { kind: "invalid", errors: toSchemaErrors(fn.errors) };
  }

  get size(): number {
    return this.compiled.size;
  }

  private ajv(draft: Draft): Ajv {
    let ajv = this.ajvs.get(draft);
    if (!ajv) {
      ajv = draft === "2020-12" ? new Ajv2020(OPTIONS) : draft === "2019-09" ? new Ajv2019(OPTIONS) : new Ajv(OPTIONS);
      addFormats(ajv);
      this.ajvs.set(draft, ajv);
    }
    return ajv;
  }
}

/** Errors as one line: `/limit must be <= 50; /query is required`. */
export function schemaErrorsText(errors: readonly SchemaError[]): string {
  return errors.map((e) => `${e.path} ${e.message}`).join("; ");
}
