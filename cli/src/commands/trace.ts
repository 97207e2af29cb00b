import { resolve } from "node:path";
import { traceHtml } from "@warden/projections";
import { onePositional } from "../args.js";
import type { TRACE_OPTIONS } from "../command-list.js";
import { withBus } from "../connect.js";
import { parseToken } from "../domain/options.js";
import { traceText, unreadableLines } from "../domain/trace-format.js";
import { fitLines } from "../domain/short-forms.js";
import { CliError, EXIT_OK } from "../errors.js";
import { writeNamedFile } from "../named-file.js";
import type { Command } from "../io.js";
import { emit, TEXT_WIDTH } from "../output.js";
import { callOfApproval, readCallTrace } from "../trace-reader.js";

/**
 * `warden trace CALL_ID [--wide] [--html FILE]`: the call's events in order, who did what and
 * when, and its child calls; lines fit 100 columns unless --wide. --html also writes the timeline
 * as a self-contained page.
 */
export const traceCommand: Command<typeof TRACE_OPTIONS> = async ({ values, positionals }, io) => {
  const id = parseToken("call id", onePositional(positionals, "CALL_ID"));
  const { callId, trace } = await withBus(io, { name: values.as, creds: values.creds, fallback: "admin" }, async (bus) => {
    const own = await readCallTrace(bus, id);
    if (own !== undefined) return { callId: id, trace: own };
    // an approval id (what `warden call` and the inbox print): trace the call it belongs to
    const ofApproval = await callOfApproval(bus, id);
    if (ofApproval === undefined) return { callId: id, trace: undefined };
    io.err(`approval ${id} belongs to call ${ofApproval}`);
    return { callId: ofApproval, trace: await readCallTrace(bus, ofApproval) };
  });
  if (trace === undefined) throw new CliError("NOT_FOUND", `no events for call ${callId}${callId === id ? ", and no approval with that id" : ""}`);
  if (!("steps" in trace)) {
    throw new CliError("NOT_FOUND", [`no valid events for call ${callId}; its messages that are not events:`, ...unreadableLines(trace.unreadable)].join("\n"));
  }
  if (values.html !== undefined) {
    const out = resolve(io.cwd, values.html);
    await writeNamedFile(out, traceHtml(trace, { generatedAt: new Date().toISOString() }), 0o644);
    // stderr: stdout stays the trace (or its one JSON document)
    io.err(`wrote the timeline of call ${callId} to ${out}`);
  }
  const wide = values.wide ?? false;
  emit(io, values.json ?? false, trace, () => [traceText(trace, { wide }), ...unreadableLines(trace.unreadable).map((l) => (wide ? l : fitLines(l, TEXT_WIDTH)))].join("\n"));
  return EXIT_OK;
};
