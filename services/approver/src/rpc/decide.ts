import { appendEvent, readEvent, type Bus, type Logger } from "@warden/bus";
import { newId, type ApprovalRequested, type WardenEvent } from "@warden/contracts/events";
import { parseDecideSubject } from "@warden/contracts/subjects";
import { type Reply } from "@warden/contracts/descriptor";
import { DecisionRequestSchema, type DecisionReply } from "@warden/contracts/approval";
import { argsHash, type JsonValue } from "@warden/contracts/json";
import type { ApprovalStore } from "../approval-store.js";
import { approvalDeniedEvent, approvalGrantedEvent } from "../domain/approval-events.js";
import type { DecisionMade } from "../domain/approval-record.js";
import { alreadyDecided, boundPreviewHash, decidedRecord, denialReason, judgeDecision, signGrant, type GrantExtras, type Signer } from "../domain/decision.js";
import { NO_OUTCOME } from "../domain/settled-on-stream.js";
import { quorumOf } from "@warden/policy-engine";
import type { PolicyDocumentFollower } from "@warden/service-kit";
import { sessionGrantRefusal, sessionTermsOf } from "../domain/session-terms.js";
import type { SessionGrants } from "../session-grants.js";
import { readStreamOutcome } from "../stream-outcome.js";
import type { ToolFacts } from "../tool-facts.js";
import { inApprovalWaitSpan } from "../approval-wait-span.js";

export interface DecideDeps {
  readonly bus: Bus;
  readonly log: Logger;
  readonly documents: PolicyDocumentFollower;
  readonly approvals: ApprovalStore;
  readonly signer: Signer;
  readonly factsOf: (tool: string, version: string) => Promise<ToolFacts>;
  /** An error text for args that fail the tool's inputSchema; undefined when they pass. */
  readonly checkArgs: (descriptor: NonNullable<ToolFacts["descriptor"]>, descriptorHash: string, args: unknown) => string | undefined;
  /** The session grants this copy holds; a grant for the session is added at once. */
  readonly sessions?: SessionGrants;
}

const answer = (reply: DecisionReply): Reply => ({ ok: true, value: reply });

/**
 * `warden.decide.<approver>.<approvalId>`: the approver is the subject's token. A decision is
 * taken by a compare-and-set of the lock record (single use), then recorded as an event. Before
 * anything is signed, the call's stream is read: a grant, denial or expiry already written there
 * refuses the decision whatever the lock record says.
 */
export function decideHandler(deps: DecideDeps) {
  const { bus, approvals } = deps;
  return async (payload: unknown, msg: { subject: string }): Promise<Reply> => {
    const subject = parseDecideSubject(msg.subject);
    if (subject === undefined) return answer({ ok: false, refusal: "MALFORMED", message: `not a decision subject: ${msg.subject}` });
    const body = DecisionRequestSchema.safeParse(payload);
    if (!body.success) {
      const issue = body.error.issues[0];
      return answer({ ok: false, refusal: "MALFORMED", message: `bad decision: ${issue?.path.join(".") ?? ""} ${issue?.message ?? ""}`.trim() });
    }
    const { approver, approvalId } = subject;
    const log = deps.log.child({ approvalId, approver });
    const entry = await approvals.get(approvalId);
    const [requested, outcome] =
      entry === undefined
        ? [undefined, NO_OUTCOME]
        : await Promise.all([
            readEvent(bus, entry.value.domain, entry.value.callId, "ApprovalRequested"),
            readStreamOutcome(bus, entry.value.domain, entry.value.callId),
          ]);
    const now = new Date();
    const judged = judgeDecision({ record: entry?.value, requested, outcome, approver, request: body.data, doc: deps.documents.current(), now });
    if (!judged.ok) {
      log.info({ refusal: judged.refusal }, "decision refused");
      return answer(judged);
    }
    if (entry === undefined || requested === undefined) throw new Error("a decision was judged without its record and request");
    const record = entry.value;
    const request = requested;
    const grant = body.data.decision === "grant";
    const previewHash = boundPreviewHash(request);
    if (grant && body.data.args !== undefined && previewHash !== undefined) {
      // the dry run the people approving saw was of the requested args; other args were never previewed
      log.info({ refusal: "EDIT_NOT_ALLOWED" }, "decision refused");
      return answer({ ok: false, refusal: "EDIT_NOT_ALLOWED", message: "an L5 call runs only the args its dry run showed: grant them as they are, or deny with the change as the reason so the caller asks again" });
    }
    const edit = grant && body.data.args !== undefined ? await editOf(request, body.data.args) : undefined;
    if (edit !== undefined && !edit.ok) {
      log.info({ refusal: "INVALID_ARGS" }, "decision refused");
      return answer({ ok: false, refusal: "INVALID_ARGS", message: edit.message });
    }
    const edited = edit?.ok === true && edit.argsHash !== request.data.argsHash ? { args: edit.args, argsHash: edit.argsHash } : undefined;
    const boundHash = edited?.argsHash ?? request.data.argsHash;
    const votes = record.votes ?? [];
    // an edit may change what the quorum's conditions see (an amount raised over a threshold): the
    // args that will run count, never fewer people than the card asked
    const runArgs = votes[0]?.args ?? edited?.args;
    const need = Math.max(record.quorum ?? 1, runArgs === undefined ? 1 : quorumOf(deps.documents.current(), quorumFactsOf(request, runArgs)).approvers);
    const askedSession = body.data.session;
    if (askedSession !== undefined) {
      const refusal = grant
        ? sessionGrantRefusal(deps.documents.current(), request, need, askedSession, votes[0]?.args ?? edited?.args ?? request.data.args)
        : "only a grant may be given for the session";
      if (refusal !== undefined) {
        log.info({ refusal: "SESSION_NOT_ALLOWED" }, "decision refused");
        return answer({ ok: false, refusal: "SESSION_NOT_ALLOWED", message: refusal });
      }
    }
    if (grant && votes.length > 0 && votes[0]!.argsHash !== boundHash) {
      // every grant of a quorum is for the same args, or the ones that run had fewer approvers
      return answer({ ok: false, refusal: "ARGS_HASH_MISMATCH", message: `${votes[0]!.approver} granted other args (${votes[0]!.argsHash}); grant those, or deny` });
    }
    if (grant && votes.length + 1 < need) {
      const vote = { approver, at: now.toISOString(), argsHash: boundHash, ...(edited === undefined ? {} : { args: edited.args }) };
      if (!(await approvals.update({ ...record, votes: [...votes, vote] }, entry.revision))) return lostRace();
      log.info({ have: votes.length + 1, need }, "approval granted towards its quorum");
      return answer({ ok: true, approvalId, callId: record.callId, decision: "grant", argsHash: boundHash, quorum: { have: votes.length + 1, need } });
    }
    const firstEdit = votes[0]?.args === undefined ? edited : { args: votes[0].args, argsHash: votes[0].argsHash };
    const session = askedSession === undefined ? undefined : sessionTermsOf(askedSession, now, votes[0]?.args ?? edited?.args ?? request.data.args, request.data.chain?.[0]?.principal ?? request.principal);
    const extras: GrantExtras = {
      ...(firstEdit === undefined ? {} : { edit: firstEdit }),
      ...(votes.length === 0 ? {} : { coApprovers: votes }),
      ...(session === undefined ? {} : { session }),
      ...(previewHash === undefined ? {} : { previewHash }),
    };
    const made: DecisionMade = grant
      ? { decision: "grant", approver, decidedAt: now.toISOString(), grant: signGrant(request, approver, now, newId(), deps.signer, extras) }
      : { decision: "deny", approver, decidedAt: now.toISOString(), reason: denialReason(approver, body.data.reason) };
    if (!(await approvals.update(decidedRecord(record, made), entry.revision))) return lostRace();
    const decided = await appendDecision(bus, request, made).catch((err: unknown) => {
      // the record holds the decision; the sweeper appends the event it finds missing
      log.error({ err }, "decision event append failed, left to the sweeper");
      return undefined;
    });
    // this copy covers the next call at once; the others read the grant from the stream
    if (decided?.type === "ApprovalGranted") deps.sessions?.add(decided);
    log.info({ decision: body.data.decision, callId: record.callId, edited: edited !== undefined, session: session !== undefined }, "approval decided");
    return answer({
      ok: true,
      approvalId,
      callId: record.callId,
      decision: body.data.decision,
      ...(grant ? { argsHash: boundHash } : {}),
      ...(need > 1 && grant ? { quorum: { have: votes.length + 1, need } } : {}),
      ...(session === undefined ? {} : { session: { grantId: record.callId, expiresAt: session.expiresAt } }),
    });

    async function lostRace(): Promise<Reply> {
      // lost the race to another decision or to the sweeper: say who decided, and when
      const now = await approvals.get(approvalId);
      log.info({ status: now?.value.status }, "decision lost a race");
      if (now === undefined) return answer({ ok: false, refusal: "ALREADY_DECIDED", message: "the approval was already decided" });
      if (now.value.status === "pending") return answer({ ok: false, refusal: "ALREADY_DECIDED", message: "another grant was recorded at the same time; look at the approval again" });
      const judged = alreadyDecided(now.value);
      return answer(judged.ok ? { ok: false, refusal: "ALREADY_DECIDED", message: "the approval was already decided" } : judged);
    }
  };

  /** Edited args, re-validated against the schema of the tool version the call is bound to. */
  async function editOf(
    request: ApprovalRequested,
    args: JsonValue,
  ): Promise<{ ok: true; args: JsonValue; argsHash: string } | { ok: false; message: string }> {
    const facts = await deps.factsOf(request.tool, request.data.version);
    if (facts.descriptor === undefined) return { ok: false, message: `the registry does not hold ${request.tool}@${request.data.version}, so edited args cannot be checked` };
    const problem = deps.checkArgs(facts.descriptor, request.data.descriptorHash, args);
    if (problem !== undefined) return { ok: false, message: `the edited args do not fit ${request.tool}@${request.data.version}: ${problem}` };
    return { ok: true, args, argsHash: argsHash(args) };
  }
}

/** What the quorum is decided on, from the card (its level and action type were read from the registered descriptor). */
function quorumFactsOf(request: ApprovalRequested, args: JsonValue) {
  const d = request.data;
  return { tool: request.tool, grade: d.grade, level: d.level, actionType: d.actionType, args };
}

/** Appends the event of a decision the record already holds (appending again is harmless) and answers the event the stream holds. */
export async function appendDecision(bus: Bus, requested: ApprovalRequested, made: DecisionMade): Promise<WardenEvent | undefined> {
  const stamp = { eventId: newId(), ts: made.decidedAt };
  const end = { outcome: made.decision === "grant" ? ("granted" as const) : ("denied" as const), decidedBy: made.approver, at: made.decidedAt };
  // built inside the wait's span: the decision event carries it
  return inApprovalWaitSpan(requested, end, async () => {
    const event =
      made.decision === "grant"
        ? approvalGrantedEvent(requested, made.grant, stamp)
        : approvalDeniedEvent(requested, made.approver, made.reason, stamp);
    const appended = await appendEvent(bus, event);
    return appended.status === "written" ? event : appended.existing;
  });
}
