import { cancelCall } from "@warden/sdk";
import { onePositional } from "../args.js";
import type { CANCEL_OPTIONS } from "../command-list.js";
import { withBus } from "../connect.js";
import { parseToken } from "../domain/options.js";
import { EXIT_FAILED, EXIT_OK } from "../errors.js";
import type { Command } from "../io.js";
import { emit } from "../output.js";

/** `warden cancel CALL_ID --as P [--reason R]`: stops a call before an executor claims it. */
export const cancelCommand: Command<typeof CANCEL_OPTIONS> = async ({ values, positionals }, io) => {
  const callId = parseToken("call id", onePositional(positionals, "CALL_ID"));
  const who = parseToken("--as", values.as);
  const outcome = await withBus(io, { name: who, creds: values.creds }, (bus) => cancelCall(bus, who, callId, values.reason));
  const doc = outcome.ok
    ? outcome
    : { ok: false, callId, by: who, refusal: outcome.refusal, error: { code: outcome.refusal === "NOT_FOUND" ? "NOT_FOUND" : "FORBIDDEN", message: outcome.message } };
  emit(io, values.json ?? false, doc, () =>
    outcome.ok ? `cancelled ${outcome.callId} as ${outcome.by} at ${outcome.at}; it will not run` : `refused: ${outcome.refusal}: ${outcome.message}`,
  );
  return outcome.ok ? EXIT_OK : EXIT_FAILED;
};
