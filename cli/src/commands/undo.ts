import { createAgentClient, DEFAULT_CALL_TIMEOUT_MS } from "@warden/sdk";
import { callerOf, onePositional } from "../args.js";
import type { UNDO_OPTIONS } from "../command-list.js";
import { withBus } from "../connect.js";
import { callDocument, callExitCode, callText } from "../domain/call-output.js";
import { parseDuration, parseFlags, parseMode, parseToken } from "../domain/options.js";
import type { Command } from "../io.js";
import { emit } from "../output.js";

/** `warden undo CALL_ID`: the undo its tool declares, as a governed call of the call's requester. */
export const undoCommand: Command<typeof UNDO_OPTIONS> = async ({ values, positionals }, io) => {
  const callId = parseToken("call id", onePositional(positionals, "CALL_ID"));
  const mode = parseMode(values.mode, "human");
  const caller = callerOf(values, io.env);
  const scope = values.scope === undefined ? null : parseToken("--scope", values.scope);
  const timeoutMs = parseDuration("--timeout", values.timeout, DEFAULT_CALL_TIMEOUT_MS);
  const result = await withBus(io, caller.who, (bus, identity) =>
    createAgentClient({ bus, principal: caller.principalFor(identity), mode }).undo(callId, { flags: parseFlags(values.flags), scope, wait: values.wait ?? false, timeoutMs }),
  );
  emit(io, values.json ?? false, callDocument(result), () => callText(result));
  return callExitCode(result);
};
