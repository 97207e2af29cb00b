import type { JsonValue } from "@warden/contracts/json";
import type { Redactor, ToolContext } from "@warden/executor";
import type { AdapterHooks, Args } from "../adapter-tool.js";
import type { ToolHooks } from "../manifest/manifest-schema.js";
import { hookCommand, type HookCommandDeps } from "./hook-command.js";

/**
 * The commands a manifest declares around a call, each given the call as JSON on stdin:
 * `{ tool, callId, principal, onBehalfOf, args }`, plus `output` for verify and `result` for postCall.
 * `redactor` cleans a refusal's reason of the tool's secrets, as its other output is.
 */
export function manifestHooks(
  tool: string,
  hooks: ToolHooks,
  toolRoots: readonly string[] | undefined,
  deps: HookCommandDeps,
  redactor: (ctx: ToolContext) => Promise<Redactor>,
): AdapterHooks {
  const call = (args: Args, ctx: ToolContext) => ({ tool, callId: ctx.callId, principal: ctx.principal, onBehalfOf: ctx.onBehalfOf, args: args as JsonValue });
  const out: { -readonly [K in keyof AdapterHooks]: AdapterHooks[K] } = {};
  if (hooks.preCall !== undefined) {
    const run = hookCommand(tool, "preCall", hooks.preCall, toolRoots, deps);
    out.preCall = async (args, ctx) => run(call(args, ctx), ctx.signal, await redactor(ctx));
  }
  if (hooks.verify !== undefined) {
    const run = hookCommand(tool, "verify", hooks.verify, toolRoots, deps);
    out.verify = async (args, output, ctx) => run({ ...call(args, ctx), output }, ctx.signal, await redactor(ctx));
  }
  if (hooks.postCall !== undefined) {
    const run = hookCommand(tool, "postCall", hooks.postCall, toolRoots, deps);
    out.postCall = async (args, result, ctx) => {
      const reason = await run({ ...call(args, ctx), result: result as unknown as JsonValue }, ctx.signal, await redactor(ctx));
      if (reason !== undefined) throw new Error(reason);
    };
  }
  return out;
}
