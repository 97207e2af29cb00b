import { appendEvent, readEvent, type Bus, type Logger } from "@warden/bus";
import {
  DecisionRequestSchema,
  newId,
  parseDecideSubject,
  type ApprovalRequested,
  type DecisionReply,
  type Reply,
} from "@warden/contracts";
import type { ApprovalStore } from "../approval-store.js";
import { approvalDeniedEvent, approvalGrantedEvent } from "../domain/approval-events.js";
import type { DecisionMade } from "../domain/approval-record.js";
import { decidedRecord, denialReason, judgeDecision, signGrant, type Signer } from "../domain/decision.js";
import { NO_OUTCOME } from "../domain/settled-on-stream.js";
import type { PolicyDocumentFollower } from "@warden/service-kit";
import { readStreamOutcome } from "../stream-outcome.js";

export interface DecideDeps {
  readonly bus: Bus;
  readonly log: Logger;
  readonly documents: PolicyDocumentFollower;
  readonly approvals: ApprovalStore;
  readonly signer: Signer;
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
    const made: DecisionMade =
      body.data.decision === "grant"
        ? { decision: "grant", approver, decidedAt: now.toISOString(), grant: signGrant(request, approver, now, newId(), deps.signer) }
        : { decision: "deny", approver, decidedAt: now.toISOString(), reason: denialReason(approver, body.data.reason) };
    if (!(await approvals.update(decidedRecord(record, made), entry.revision))) {
      // lost the race to another decision or to the sweeper
      const status = (await approvals.get(approvalId))?.value.status ?? "decided";
      log.info({ status }, "decision lost a race");
      return answer({ ok: false, refusal: status === "expired" ? "EXPIRED" : "ALREADY_DECIDED", message: `the approval was already ${status}` });
    }
    await appendDecision(bus, request, made).catch((err: unknown) => {
      // the record holds the decision; the sweeper appends the event it finds missing
      log.error({ err }, "decision event append failed, left to the sweeper");
    });
    log.info({ decision: body.data.decision, callId: record.callId }, "approval decided");
    return answer({ ok: true, approvalId, callId: record.callId, decision: body.data.decision });
  };
}

/** Appends the event of a decision the record already holds; appending again is harmless. */
export async function appendDecision(bus: Bus, requested: ApprovalRequested, made: DecisionMade): Promise<void> {
  const stamp = { eventId: newId(), ts: made.decidedAt };
  const event =
    made.decision === "grant"
      ? approvalGrantedEvent(requested, made.grant, stamp)
      : approvalDeniedEvent(requested, made.approver, made.reason, stamp);
  await appendEvent(bus, event);
}
