import { Ajv, type AnySchemaObject, type ErrorObject, type Options, type ValidateFunction } from "ajv";
import { Ajv2019 } from "ajv/dist/2019.js";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { fail, ok, type JsonObject, type Outcome, type ToolRecord, type WardenError } from "@warden/contracts";

// ajv-formats is CommonJS: under NodeNext its default import is the module object, which is the plugin itself.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

export interface ArgsError {
  /** JSON-pointer-ish path of the failing value, e.g. `/limit`; `/` is the args object itself. */
  readonly path: string;
  readonly message: string;
}

export type ArgsCheck =
  | { readonly kind: "valid" }
  | { readonly kind: "invalid"; readonly errors: readonly ArgsError[] }
  /** The schema itself does not compile (registration checks this, so only an old record can). */
  | { readonly kind: "broken"; readonly error: WardenError };

/** At most this many errors travel in a rejection: enough to fix the call, not a wall of text. */
export const MAX_ARGS_ERRORS = 20;

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

function makeAjv(draft: Draft): Ajv {
  const ajv = draft === "2020-12" ? new Ajv2020(OPTIONS) : draft === "2019-09" ? new Ajv2019(OPTIONS) : new Ajv(OPTIONS);
  addFormats(ajv);
  return ajv;
}

/** Turns ajv's errors into `{path, message}` pairs a model (or a person) can act on. */
export function toArgsErrors(errors: readonly ErrorObject[] | null | undefined): ArgsError[] {
  return (errors ?? []).slice(0, MAX_ARGS_ERRORS).map((e) => {
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
 * Validates call args against a tool's inputSchema. Each validator is compiled once per
 * name + version + descriptorHash and kept: versions are immutable, so it never goes stale.
 */
export class ArgsValidators {
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

  validate(record: ToolRecord, args: unknown): ArgsCheck {
    const fn = this.validatorFor(record);
    if (!fn.ok) return { kind: "broken", error: fn.error };
    if (fn.value(args)) return { kind: "valid" };
    return { kind: "invalid", errors: toArgsErrors(fn.value.errors) };
  }

  get size(): number {
    return this.compiled.size;
  }

  private validatorFor(record: ToolRecord): Outcome<ValidateFunction> {
    const d = record.descriptor;
    const key = `${d.name}@${d.version}#${record.descriptorHash}`;
    const hit = this.compiled.get(key);
    if (hit) return ok(hit);
    try {
      const fn = this.ajv(draftOf(d.inputSchema)).compile(d.inputSchema as AnySchemaObject);
      this.compiled.set(key, fn);
      return ok(fn);
    } catch (err) {
      return fail("DESCRIPTOR_INVALID", `the inputSchema of ${d.name}@${d.version} does not compile: ${(err as Error).message}`);
    }
  }

  private ajv(draft: Draft): Ajv {
    let ajv = this.ajvs.get(draft);
    if (!ajv) {
      ajv = makeAjv(draft);
      this.ajvs.set(draft, ajv);
    }
    return ajv;
  }
}
