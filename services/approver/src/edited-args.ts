import { Ajv, type AnySchemaObject, type Options, type ValidateFunction } from "ajv";
import { Ajv2019 } from "ajv/dist/2019.js";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import type { JsonObject, ToolDescriptor } from "@warden/contracts";

// ajv-formats is CommonJS: under NodeNext its default import is the module object, which is the plugin itself.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

// as the registry compiles them: unknown keywords are annotations, $ids are not remembered across versions
const OPTIONS: Options = { allErrors: true, strict: false, logger: false, addUsedSchema: false };
const MAX_ERRORS = 10;

/**
 * Checks args an approver edited against the tool's inputSchema, the way the registry checked the
 * requested ones (same drafts and formats). Validators are kept per descriptor hash: a version's
 * schema never changes. An error names each failing path.
 */
export function editedArgsChecker(): (descriptor: ToolDescriptor, descriptorHash: string, args: unknown) => string | undefined {
  const ajvs = new Map<string, Ajv>();
  const compiled = new Map<string, ValidateFunction>();
  const ajvFor = (schema: JsonObject) => {
    const declared = typeof schema["$schema"] === "string" ? schema["$schema"] : "";
    const draft = declared.includes("2020-12") ? "2020-12" : declared.includes("2019-09") ? "2019-09" : "draft-07";
    let ajv = ajvs.get(draft);
    if (ajv === undefined) {
      ajv = draft === "2020-12" ? new Ajv2020(OPTIONS) : draft === "2019-09" ? new Ajv2019(OPTIONS) : new Ajv(OPTIONS);
      addFormats(ajv);
      ajvs.set(draft, ajv);
    }
    return ajv;
  };
  return (descriptor, descriptorHash, args) => {
    let fn = compiled.get(descriptorHash);
    if (fn === undefined) {
      try {
        fn = ajvFor(descriptor.inputSchema).compile(descriptor.inputSchema as AnySchemaObject);
      } catch (err) {
        return `the tool's inputSchema does not compile: ${(err as Error).message}`;
      }
      compiled.set(descriptorHash, fn);
    }
    if (fn(args)) return undefined;
    return (fn.errors ?? [])
      .slice(0, MAX_ERRORS)
      .map((e) => `${e.instancePath === "" ? "/" : e.instancePath} ${e.message ?? e.keyword}`)
      .join("; ");
  };
}
