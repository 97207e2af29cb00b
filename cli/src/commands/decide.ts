import { SessionGrantRequestSchema, type SessionGrantRequest } from "@warden/contracts/policy";
import { type JsonValue } from "@warden/contracts/json";
import { createApproverClient, type DecisionOutcome } from "@warden/sdk";
import { onePositional, type CommandInput } from "../args.js";
import type { DECIDE_OPTIONS } from "../command-list.js";
import { withBus } from "../connect.js";
import { parseJsonArgs, parseToken } from "../domain/options.js";
import { CliError, EXIT_FAILED, EXIT_OK, usageError } from "../errors.js";
import type { Command, CommandIo } from "../io.js";
import { emit } from "../output.js";


const UNSEEN_ARGS_HASH = "unseen";

/** `warden approve ID --as P [--reason R]`. */
export const approveCommand: Command<typeof DECIDE_OPTIONS> = (input, io) => decide("grant", input, io);

/** `warden deny ID --as P --reason R`. */
export const denyCommand: Command<typeof DECIDE_OPTIONS> = (input, io) => decide("deny", input, io);

async function decide(decision: "grant" | "deny", { values, positionals }: CommandInput<typeof DECIDE_OPTIONS>, io: CommandIo): Promise<number> {
  const approvalId = parseToken("approval id", onePositional(positionals, "APPROVAL_ID"));
  const approver = parseToken("--as", values.as);
  const reason = values.reason;
  if (decision === "deny" && (reason === undefined || reason.trim() === "")) throw usageError("--reason is required to deny");
  if (decision === "deny" && values.args !== undefined) throw usageError("--args edits what is granted; a denial runs nothing");
  const edited = values.args === undefined ? undefined : parseJsonArgs(values.args);
  if (decision === "deny" && (values.session !== undefined || values["session-args"] !== undefined)) throw usageError("--session grants for the session; a denial grants nothing");
  if (values["session-args"] !== undefined && values.session === undefined) throw usageError("--session-args needs --session DURATION");
  if (values["session-closed"] === true && values.session === undefined) throw usageError("--session-closed needs --session DURATION");
  const session = values.session === undefined ? undefined : { ...sessionRequestOf(values.session, values["session-args"]), ...(values["session-closed"] === true ? { closed: true } : {}) };
  const { outcome, argsHash } = await withBus(io, { name: approver, creds: values.creds }, async (bus) => {
    const client = createApproverClient({ bus, approver });
    // a decision must echo the argsHash of the args the approver saw
    let hash = values["args-hash"];
    if (hash === undefined) {
      const pending = await client.pending();
      if (!pending.ok) throw new CliError(pending.error.code, pending.error.message);
      // not in this approver's inbox: the approver service still says why (not authorised, already
      // decided, expired, unknown); a hash nobody saw can never be granted
      hash = pending.value.find((p) => p.approvalId === approvalId)?.argsHash ?? UNSEEN_ARGS_HASH;
    }
    const outcome: DecisionOutcome =
      decision === "grant"
        ? await client.approve(approvalId, hash, {
            ...(reason === undefined ? {} : { reason }),
            ...(edited === undefined ? {} : { args: edited as JsonValue }),
            ...(session === undefined ? {} : { session }),
          })
        : await client.deny(approvalId, hash, reason ?? "");
    return { outcome, argsHash: hash };
  });
  const doc = outcome.ok
    ? {
        ok: true,
        approvalId: outcome.approvalId,
        callId: outcome.callId,
        decision: outcome.decision,
        approver,
        argsHash,
        ...(outcome.argsHash !== undefined && outcome.argsHash !== argsHash ? { grantedArgsHash: outcome.argsHash } : {}),
        ...(outcome.quorum === undefined ? {} : { quorum: outcome.quorum }),
        ...(outcome.session === undefined ? {} : { session: outcome.session }),
      }
    : {
        ok: false,
        approvalId,
        decision,
        approver,
        argsHash,
        refusal: outcome.refusal,
        ...("decided" in outcome && outcome.decided !== undefined ? { decided: outcome.decided } : {}),
        // an approval that does not exist is NOT_FOUND, as for any other unknown thing; the rest are refusals
        error: { code: outcome.refusal === "UNKNOWN_APPROVAL" ? "NOT_FOUND" : "DECISION_REFUSED", message: outcome.message },
      };
  emit(io, values.json ?? false, doc, () =>
    outcome.ok
      ? `${decidedText(outcome, approver, argsHash)}\nnext: npx warden trace ${outcome.callId}`
      : argsHash === UNSEEN_ARGS_HASH && outcome.refusal === "ARGS_HASH_MISMATCH"
        ? `refused: ${approvalId} is not in ${approver}'s inbox (see \`warden approvals --as ${approver}\`)`
        : `refused: ${outcome.refusal}: ${outcome.message}`,
  );
  return outcome.ok ? EXIT_OK : EXIT_FAILED;
}

function decidedText(o: Extract<DecisionOutcome, { ok: true }>, approver: string, seen: string): string {
  const verb = o.decision === "grant" ? "granted" : "denied";
  const args = o.argsHash !== undefined && o.argsHash !== seen ? `edited args ${o.argsHash}, requested ${seen}` : `args ${seen}`;
  const quorum = o.quorum === undefined ? "" : o.quorum.have < o.quorum.need ? `; ${o.quorum.have} of ${o.quorum.need} grants, it waits for another approver` : `; ${o.quorum.need} of ${o.quorum.need} grants, it runs`;
  const session = o.session === undefined ? "" : `\nfor the session until ${o.session.expiresAt} (revoke: warden revoke ${o.session.grantId} --session --as ${approver})`;
  return `${verb} ${o.approvalId} as ${approver} (call ${o.callId}; ${args}${quorum})${session}`;
}

/** `--session 30m --session-args '{"customerId":{"equals":"C-1"}}'` as the decision's session request. */
function sessionRequestOf(duration: string, constraints: string | undefined): SessionGrantRequest {
  const m = /^(\d+)(s|m|h)?$/.exec(duration.trim());
  if (m === null) throw usageError(`--session takes a duration such as 90s, 30m or 1h, not ${JSON.stringify(duration)}`);
  const ttlSeconds = Number(m[1]) * (m[2] === "h" ? 3600 : m[2] === "m" ? 60 : 1);
  const parsed = SessionGrantRequestSchema.safeParse({ ttlSeconds, ...(constraints === undefined ? {} : { args: parseJsonArgs(constraints) }) });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw usageError(`--session${issue?.path[0] === "args" ? "-args" : ""}: ${issue?.path.slice(1).join(".") ?? ""} ${issue?.message ?? "invalid"}`.replace(/: +/, ": "));
  }
  return parsed.data;
}
