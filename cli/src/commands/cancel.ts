import { cancelCall, revokeSessionGrant, type CancelOutcome } from "@warden/sdk";
import { onePositional } from "../args.js";
import type { CANCEL_OPTIONS, REVOKE_OPTIONS } from "../command-list.js";
import { withBus } from "../connect.js";
import { parseToken } from "../domain/options.js";
import { EXIT_FAILED, EXIT_OK } from "../errors.js";
import type { Command, CommandIo } from "../io.js";
import { emit } from "../output.js";

/** `warden cancel CALL_ID --as P [--reason R]`: stops a call before an executor claims it. */
export const cancelCommand: Command<typeof CANCEL_OPTIONS> = async ({ values, positionals }, io) => {
  const callId = parseToken("call id", onePositional(positionals, "CALL_ID"));
  const who = parseToken("--as", values.as);
  const outcome = await withBus(io, { name: who, creds: values.creds }, (bus) => cancelCall(bus, who, callId, values.reason));
  return report(outcome, callId, who, values.json ?? false, io, (o) => `cancelled ${o.callId} as ${o.by} at ${o.at}; it will not run`);
};

/** `warden revoke CALL_ID --as P [--session] [--reason R]`: a person's unused grant, or the session grant made on the call. */
export const revokeCommand: Command<typeof REVOKE_OPTIONS> = async ({ values, positionals }, io) => {
  const callId = parseToken("call id", onePositional(positionals, "CALL_ID"));
  const who = parseToken("--as", values.as);
  const session = values.session ?? false;
  const outcome = await withBus(io, { name: who, creds: values.creds }, (bus) => (session ? revokeSessionGrant : cancelCall)(bus, who, callId, values.reason));
  return report(outcome, callId, who, values.json ?? false, io, (o) =>
    session ? `revoked the session grant of call ${o.callId} as ${o.by} at ${o.at}; later calls ask a person again` : `revoked the grant of ${o.callId} as ${o.by} at ${o.at}; it will not run`,
  );
};

function report(outcome: CancelOutcome, callId: string, who: string, json: boolean, io: CommandIo, done: (o: Extract<CancelOutcome, { ok: true }>) => string): number {
  const doc = outcome.ok
    ? outcome
    : { ok: false, callId, by: who, refusal: outcome.refusal, error: { code: outcome.refusal === "NOT_FOUND" ? "NOT_FOUND" : "FORBIDDEN", message: outcome.message } };
  emit(io, json, doc, () => (outcome.ok ? done(outcome) : `refused: ${outcome.refusal}: ${outcome.message}`));
  return outcome.ok ? EXIT_OK : EXIT_FAILED;
}
