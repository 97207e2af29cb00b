import { JSON_OPTION, onePositional, parseCommandArgs } from "../args.js";
import { withBus } from "../connect.js";
import { parseToken } from "../domain/options.js";
import { traceText } from "../domain/trace-format.js";
import { CliError, EXIT_OK } from "../errors.js";
import type { Command } from "../io.js";
import { emit } from "../output.js";
import { readCallTrace } from "../trace-reader.js";

/** `warden trace CALL_ID`: the call's events in order, who did what and when, and its child calls. */
export const traceCommand: Command = async (argv, io) => {
  const { values, positionals } = parseCommandArgs(argv, JSON_OPTION);
  const callId = parseToken("call id", onePositional(positionals, "CALL_ID"));
  const trace = await withBus(io.env, "warden-cli", (bus) => readCallTrace(bus, callId));
  if (trace === undefined) throw new CliError("NOT_FOUND", `no events for call ${callId}`);
  emit(io, values.json ?? false, trace, () => traceText(trace));
  return EXIT_OK;
};
