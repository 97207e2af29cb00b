import { onePositional } from "../args.js";
import type { TRACE_OPTIONS } from "../command-list.js";
import { withBus } from "../connect.js";
import { parseToken } from "../domain/options.js";
import { traceText, unreadableLines } from "../domain/trace-format.js";
import { CliError, EXIT_OK } from "../errors.js";
import type { Command } from "../io.js";
import { emit } from "../output.js";
import { readCallTrace } from "../trace-reader.js";

/** `warden trace CALL_ID`: the call's events in order, who did what and when, and its child calls. */
export const traceCommand: Command<typeof TRACE_OPTIONS> = async ({ values, positionals }, io) => {
  const callId = parseToken("call id", onePositional(positionals, "CALL_ID"));
  const trace = await withBus(io, { name: values.as, creds: values.creds, fallback: "admin" }, (bus) => readCallTrace(bus, callId));
  if (trace === undefined) throw new CliError("NOT_FOUND", `no events for call ${callId}`);
  if (!("steps" in trace)) {
    throw new CliError("NOT_FOUND", [`no valid events for call ${callId}; its messages that are not events:`, ...unreadableLines(trace.unreadable)].join("\n"));
  }
  emit(io, values.json ?? false, trace, () => [traceText(trace), ...unreadableLines(trace.unreadable)].join("\n"));
  return EXIT_OK;
};
