import type { HistoryEntry, Logger } from "@warden/bus";
import { lastSubjectToken } from "@warden/contracts/subjects";
import { wardenError } from "@warden/contracts/errors";
import { type Reply } from "@warden/contracts/descriptor";
import { describeConstraints, type PolicyDocument } from "@warden/contracts/policy";
import { PendingRequestSchema, type DecidedApproval, type PendingApproval, type SessionGrantView } from "@warden/contracts/approval";
import { mayDecide, principalOf } from "@warden/policy-engine";
import type { SessionGrantEvent, SessionGrants } from "../session-grants.js";
import type { ApprovalStore } from "../approval-store.js";
import { pendingApprovalOf, type ApprovalRecord } from "../domain/approval-record.js";
import { settledOnStream } from "../domain/settled-on-stream.js";
import { authorityFacts } from "../domain/who-may-decide.js";
import type { PolicyDocumentFollower } from "@warden/service-kit";
import type { RequestedApprovals } from "../requested-approvals.js";
import type { StreamOutcome } from "../domain/settled-on-stream.js";
import { cardSessionRefusal } from "../domain/session-terms.js";
import { mayReadTrace } from "../domain/trace-reader.js";

export interface PendingDeps {
  readonly log: Logger;
  /** One call's messages in stream order (`readCallHistory` of @warden/bus). */
  readonly historyOf: (callId: string) => Promise<readonly HistoryEntry[]>;
  readonly requests: RequestedApprovals;
  readonly approvals: ApprovalStore;
  readonly documents: PolicyDocumentFollower;
  readonly outcomeOf: (domain: string, callId: string) => Promise<StreamOutcome>;
  readonly sessions?: SessionGrants;
}

/**
 * `warden.approver.pending.<approver>`: the approvals this approver may decide, oldest first (or
 * the session grants this person made, or the timeline of a call they decided or may decide). The
 * approver is the subject's token (NATS permissions pin it to the caller). Built from the
 * ApprovalRequested events on the stream, never from a projected bucket: an approval is listed
 * while it is not overdue and the stream holds no grant, denial or expiry of its call. One this
 * service has just decided (its event may not be on the stream yet) is left out too.
 */
export function pendingHandler(deps: PendingDeps) {
  return async (payload: unknown, msg: { subject: string }): Promise<Reply> => {
    const approver = lastSubjectToken(msg.subject);
    if (approver === undefined) return { ok: false, error: wardenError("INVALID_REQUEST", `not a pending subject: ${msg.subject}`) };
    const asked = PendingRequestSchema.safeParse(payload ?? {});
    if (!asked.success) return { ok: false, error: wardenError("INVALID_REQUEST", `bad pending request: ${asked.error.issues[0]?.message ?? "invalid"}`) };
    const now = new Date();
    const doc = deps.documents.current();
    if (asked.data.list === "sessions") return { ok: true, value: await sessionsOf(approver, principalOf(doc, approver).operator === true, now) };
    if (asked.data.list === "trace") return traceOf(approver, asked.data.callId, doc);
    if (asked.data.list === "decided") return { ok: true, value: deps.approvals.decidedBy(approver).map(decidedApprovalOf) };
    const { requests } = await deps.requests.open(now);
    const records = deps.approvals.open().map((e) => e.value);
    const decided = new Set(records.filter((r) => r.status !== "pending").map((r) => r.approvalId));
    const votes = new Map(records.map((r) => [r.approvalId, r.votes]));
    const mine = requests.filter((r) => !decided.has(r.data.approvalId) && mayDecide(doc, approver, authorityFacts(r)).ok);
    const outcomes = await Promise.all(mine.map((r) => deps.outcomeOf(r.domain, r.callId)));
    const listed: PendingApproval[] = [];
    mine.forEach((r, i) => {
      if (settledOnStream(outcomes[i]!)) deps.requests.forget(r);
      else {
        const refusal = cardSessionRefusal(doc, r, r.data.quorum ?? 1);
        listed.push({ ...pendingApprovalOf(r, votes.get(r.data.approvalId)), sessionGrant: refusal === undefined ? { allowed: true } : { allowed: false, why: refusal } });
      }
    });
    listed.sort((a, b) => a.requestedAt.localeCompare(b.requestedAt) || a.approvalId.localeCompare(b.approvalId));
    deps.log.debug({ approver, listed: listed.length }, "pending approvals listed");
    return { ok: true, value: listed };
  };

  /** A call's timeline for a person who decided it or may decide it; for anyone else there is no such call. */
  async function traceOf(approver: string, callId: string, doc: PolicyDocument): Promise<Reply> {
    const entries = (await deps.historyOf(callId)).flatMap((h) => (h.event === undefined ? [] : [{ seq: h.seq, event: h.event }]));
    if (!mayReadTrace(doc, approver, entries.map((e) => e.event))) {
      return { ok: false, error: wardenError("NOT_FOUND", `no call ${callId} that ${approver} decided or may decide`) };
    }
    deps.log.debug({ approver, callId, events: entries.length }, "decided call's timeline read");
    return { ok: true, value: { entries } };
  }

  /** The session grants in force that this person made (an operator: all of them), oldest first. */
  async function sessionsOf(approver: string, operator: boolean, now: Date): Promise<SessionGrantView[]> {
    const held = (deps.sessions?.all(now) ?? []).filter((g) => operator || g.data.approver === approver);
    const revoked = await Promise.all(held.map((g) => deps.sessions!.revocationOf(g.domain, g.callId)));
    return held.filter((_, i) => revoked[i] === undefined).map(sessionGrantViewOf);
  }
}

function decidedApprovalOf(r: ApprovalRecord): DecidedApproval {
  const d = r.decision!;
  return {
    approvalId: r.approvalId,
    callId: r.callId,
    domain: r.domain,
    tool: r.tool,
    title: r.title,
    principal: r.principal,
    argsPreview: r.argsPreview,
    outcome: d.decision === "grant" ? "granted" : "denied",
    decidedBy: d.approver,
    decidedAt: d.decidedAt,
    reason: d.decision === "deny" ? d.reason : null,
  };
}

function sessionGrantViewOf(g: SessionGrantEvent): SessionGrantView {
  return {
    grantId: g.callId,
    approvalId: g.data.approvalId,
    domain: g.domain,
    tool: g.tool,
    version: g.data.version,
    principal: g.principal,
    mode: g.mode,
    approver: g.data.approver,
    grantedAt: g.data.grantedAt,
    expiresAt: g.data.session.expiresAt,
    args: g.data.session.args,
    covers: describeConstraints(g.data.session.args, g.data.session.argNames),
  };
}
