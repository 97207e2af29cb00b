import { closestNames } from "@warden/policy-engine";
import { createAgentClient, DEFAULT_CALL_TIMEOUT_MS, type AgentClient } from "@warden/sdk";
import { callerOf, onePositional } from "../args.js";
import type { CALL_OPTIONS } from "../command-list.js";
import { withBus } from "../connect.js";
import { callDocument, callExitCode, callText } from "../domain/call-output.js";
import { didYouMean } from "../domain/did-you-mean.js";
import { parseDuration, parseFlags, parseJsonArgs, parseMode, parseToken } from "../domain/options.js";
import { EXIT_FAILED, usageError } from "../errors.js";
import type { Command } from "../io.js";
import { emit } from "../output.js";

/** `warden call TOOL --args JSON`: returns at the call's end, or at its approval request unless --wait. */
export const callCommand: Command<typeof CALL_OPTIONS> = async ({ values, positionals }, io) => {
  const tool = onePositional(positionals, "TOOL (e.g. kb.search)");
  const args = parseJsonArgs(values.args);
  const mode = parseMode(values.mode, "human");
  const caller = callerOf(values, io.env);
  const flags = parseFlags(values.flags);
  const scope = values.scope === undefined ? null : parseToken("--scope", values.scope);
  const timeoutMs = parseDuration("--timeout", values.timeout, DEFAULT_CALL_TIMEOUT_MS);
  const runId = values["run-id"] === undefined ? undefined : parseToken("--run-id", values["run-id"]);
  if (values.goal === undefined && (values.why !== undefined || values.expects !== undefined)) throw usageError("--why and --expects need --goal");
  const intent =
    values.goal === undefined
      ? undefined
      : { goal: values.goal, ...(values.why === undefined ? {} : { rationale: values.why }), ...(values.expects === undefined ? {} : { expectedEffect: values.expects }) };
  // a caller acts as the principal whose credentials it holds
  const result = await withBus(io, caller.who, async (bus, identity) => {
    const client = createAgentClient({ bus, principal: caller.principalFor(identity), mode, ...(runId === undefined ? {} : { runId }) });
    const unknown = await unknownToolOf(client, tool, flags, scope);
    if (unknown !== undefined) return unknown;
    return client.call(tool, args, {
      flags,
      scope,
      wait: values.wait ?? false,
      timeoutMs,
      ...(values.version === undefined ? {} : { version: values.version }),
      ...(intent === undefined ? {} : { intent }),
    });
  });
  if ("recorded" in result) {
    emit(io, values.json ?? false, result, () => `rejected  (nothing recorded)\n${result.error.code}: ${result.error.message}`);
    return EXIT_FAILED;
  }
  emit(io, values.json ?? false, callDocument(result), () => callText(result));
  return callExitCode(result);
};

/** A tool name the caller's view does not know, refused here with the closest names: a person's typo is not recorded as a call. */
interface UnknownTool {
  readonly ok: false;
  readonly status: "rejected";
  readonly error: { readonly code: "UNKNOWN_TOOL"; readonly message: string };
  readonly didYouMean: readonly string[];
  readonly recorded: false;
}

/**
 * Looks the name up in the caller's own view (shown and hidden tools: every registered tool), so
 * an unknown name never reaches the stream. When the view cannot be read, the call goes ahead and
 * the registry decides, as for any agent.
 */
async function unknownToolOf(client: AgentClient, tool: string, flags: Record<string, boolean>, scope: string | null): Promise<UnknownTool | undefined> {
  const view = await client.toolView({ explain: true, flags, scope });
  if (!view.ok) return undefined;
  const known = [...view.value.view.tools.map((t) => t.name), ...view.value.view.hidden.map((h) => h.name)];
  if (known.includes(tool)) return undefined;
  const close = closestNames(tool, known);
  return {
    ok: false,
    status: "rejected",
    error: { code: "UNKNOWN_TOOL", message: `unknown tool ${JSON.stringify(tool)}: no tool by that name is registered${didYouMean(close)}` },
    didYouMean: close,
    recorded: false,
  };
}
