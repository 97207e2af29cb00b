import { createAgentClient, DEFAULT_CALL_TIMEOUT_MS } from "@warden/sdk";
import { defaultPrincipal, onePositional } from "../args.js";
import type { CALL_OPTIONS } from "../command-list.js";
import { withBus } from "../connect.js";
import { callDocument, callExitCode, callText } from "../domain/call-output.js";
import { parseDuration, parseFlags, parseJsonArgs, parseMode, parseToken } from "../domain/options.js";
import { usageError } from "../errors.js";
import type { Command } from "../io.js";
import { emit } from "../output.js";

/** `warden call TOOL --args JSON`: returns at the call's end, or at its approval request unless --wait. */
export const callCommand: Command<typeof CALL_OPTIONS> = async ({ values, positionals }, io) => {
  const tool = onePositional(positionals, "TOOL (e.g. kb.search)");
  const args = parseJsonArgs(values.args);
  const mode = parseMode(values.mode, "human");
  const principal = values.principal ?? defaultPrincipal(io.env);
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
  const result = await withBus(io, { name: values.as ?? principal, creds: values.creds }, async (bus) => {
    const client = createAgentClient({ bus, principal, mode, ...(runId === undefined ? {} : { runId }) });
    return client.call(tool, args, {
      flags,
      scope,
      wait: values.wait ?? false,
      timeoutMs,
      ...(values.version === undefined ? {} : { version: values.version }),
      ...(intent === undefined ? {} : { intent }),
    });
  });
  emit(io, values.json ?? false, callDocument(result), () => callText(result));
  return callExitCode(result);
};
