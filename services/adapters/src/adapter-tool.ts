import { Ajv, type Options, type ValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import { descriptorHash, parseToolName, type ToolDescriptor } from "@warden/contracts";
import type { ExecutableTool, PreparedCall } from "@warden/executor";

const AJV_OPTIONS: Options = { allErrors: false, strict: false, logger: false, validateFormats: false, addUsedSchema: false };

export type Args = Readonly<Record<string, unknown>>;

/**
 * An executor tool backed by an adapter. The args are validated again here (the registry already
 * did, against the same schema) so a template is only ever filled from args that fit it.
 */
export function adapterTool(descriptor: ToolDescriptor, prepare: (args: Args) => PreparedCall): ExecutableTool {
  const domain = parseToolName(descriptor.name)?.domain;
  if (domain === undefined) throw new Error(`bug: ${descriptor.name} is not a tool name`);
  const validate = compile(descriptor);
  return {
    descriptor,
    descriptorHash: descriptorHash(descriptor),
    domain,
    prepare(args) {
      if (args === null || typeof args !== "object" || Array.isArray(args)) return { ok: false, message: "the args must be an object" };
      if (!validate(args)) {
        const e = validate.errors?.[0];
        return { ok: false, message: `the args do not fit the tool's inputSchema: ${e?.instancePath || "/"} ${e?.message ?? "is invalid"}` };
      }
      return prepare(args as Args);
    },
  };
}

function compile(d: ToolDescriptor): ValidateFunction {
  const declared = d.inputSchema["$schema"];
  const ajv = typeof declared === "string" && declared.includes("2020-12") ? new Ajv2020(AJV_OPTIONS) : new Ajv(AJV_OPTIONS);
  return ajv.compile(d.inputSchema);
}
