import { Ajv, type Options, type ValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import { parseToolName } from "@warden/contracts/subjects";
import { descriptorHash, type ToolDescriptor } from "@warden/contracts/descriptor";
import { type JsonValue } from "@warden/contracts/json";
import type { ExecutableTool, PreparedCall, PreviewContext, RecordedResult, ToolContext } from "@warden/executor";

const AJV_OPTIONS: Options = { allErrors: false, strict: false, logger: false, validateFormats: false, addUsedSchema: false };

export type Args = Readonly<Record<string, unknown>>;

/** A tool's hooks, bound to a call's args when it is prepared (what `PreparedCall` carries for `defineTool` tools). */
export interface AdapterHooks {
  /** The reason to refuse the call, or undefined to go ahead. */
  readonly preCall?: (args: Args, ctx: ToolContext) => Promise<string | undefined>;
  /** The reason the output is wrong, or undefined to accept it. */
  readonly verify?: (args: Args, output: JsonValue, ctx: ToolContext) => Promise<string | undefined>;
  /** Throws when it failed: the executor logs it, the outcome stands. */
  readonly postCall?: (args: Args, result: RecordedResult, ctx: ToolContext) => Promise<void>;
}

export type PreparedPreview = { readonly ok: true; readonly run: (ctx: PreviewContext) => Promise<unknown> } | { readonly ok: false; readonly message: string };

export interface AdapterToolExtras {
  readonly hooks?: AdapterHooks;
  /** The dry run, given args that fit the schema; the descriptor says `preview: true` when there is one. */
  readonly preview?: (args: Args) => PreparedPreview;
}

/**
 * An executor tool backed by an adapter. The args are validated again here (the registry already
 * did, against the same schema) so a template is only ever filled from args that fit it; the
 * dry run and the hooks get the same checked args.
 */
export function adapterTool(descriptor: ToolDescriptor, prepare: (args: Args) => PreparedCall, extras: AdapterToolExtras = {}): ExecutableTool {
  const domain = parseToolName(descriptor.name)?.domain;
  if (domain === undefined) throw new Error(`bug: ${descriptor.name} is not a tool name`);
  if ((extras.preview !== undefined) !== (descriptor.preview === true)) throw new Error(`bug: ${descriptor.name}'s descriptor and its dry run disagree`);
  if ((extras.hooks?.verify !== undefined) !== (descriptor.verify === true)) throw new Error(`bug: ${descriptor.name}'s descriptor and its verify disagree`);
  const validate = compile(descriptor);
  const checked = (args: unknown): { ok: true; args: Args } | { ok: false; message: string } => {
    if (args === null || typeof args !== "object" || Array.isArray(args)) return { ok: false, message: "the args must be an object" };
    if (!validate(args)) {
      const e = validate.errors?.[0];
      return { ok: false, message: `the args do not fit the tool's inputSchema: ${e?.instancePath || "/"} ${e?.message ?? "is invalid"}` };
    }
    return { ok: true, args: args as Args };
  };
  const { hooks = {}, preview } = extras;
  return {
    descriptor,
    descriptorHash: descriptorHash(descriptor),
    domain,
    prepare(raw) {
      const c = checked(raw);
      if (!c.ok) return c;
      const prepared = prepare(c.args);
      if (!prepared.ok) return prepared;
      const { preCall, verify, postCall } = hooks;
      return {
        ...prepared,
        ...(preCall === undefined ? {} : { preCall: (ctx: ToolContext) => preCall(c.args, ctx) }),
        ...(verify === undefined ? {} : { verify: (output: JsonValue, ctx: ToolContext) => verify(c.args, output, ctx) }),
        ...(postCall === undefined ? {} : { postCall: (result: RecordedResult, ctx: ToolContext) => postCall(c.args, result, ctx) }),
      };
    },
    ...(preview === undefined
      ? {}
      : {
          preparePreview(raw: unknown) {
            const c = checked(raw);
            return c.ok ? preview(c.args) : c;
          },
        }),
  };
}

function compile(d: ToolDescriptor): ValidateFunction {
  const declared = d.inputSchema["$schema"];
  const ajv = typeof declared === "string" && declared.includes("2020-12") ? new Ajv2020(AJV_OPTIONS) : new Ajv(AJV_OPTIONS);
  return ajv.compile(d.inputSchema);
}
