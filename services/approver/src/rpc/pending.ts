import type { Logger } from "@warden/bus";
import { lastSubjectToken, wardenError, type ApprovalRequested, type PendingApproval, type Reply } from "@warden/contracts";
import { mayDecide } from "@warden/policy-engine";
import type { ApprovalStore } from "../approval-store.js";
import { pendingApprovalOf } from "../domain/approval-record.js";
import { settledOnStream } from "../domain/settled-on-stream.js";
import type { PolicyDocumentFollower } from "@warden/service-kit";
import type { RequestedApprovals } from "../requested-approvals.js";
import type { StreamOutcome } from "../domain/settled-on-stream.js";

export interface PendingDeps {
  readonly log: Logger;
  readonly requests: RequestedApprovals;
  readonly approvals: ApprovalStore;
  readonly documents: PolicyDocumentFollower;
  readonly outcomeOf: (domain: string, callId: string) => Promise<StreamOutcome>;
}

/**
 * `warden.approver.pending.<approver>`: the approvals this approver may decide, oldest first. The
 * approver is the subject's token (NATS permissions pin it to the caller). Built from the
 * ApprovalRequested events on the stream, never from a projected bucket: an approval is listed
 * while it is not overdue and the stream holds no grant, denial or expiry of its call. One this
 * service has just decided (its event may not be on the stream yet) is left out too.
 */
export function pendingHandler(deps: PendingDeps) {
  return async (_payload: unknown, msg: { subject: string }): Promise<Reply> => {
    const approver = lastSubjectToken(msg.subject);
    if (approver === undefined) return { ok: false, error: wardenError("INVALID_REQUEST", `not a pending subject: ${msg.subject}`) };
    const now = new Date();
    const doc = deps.documents.current();
    const { requests } = await deps.requests.open(now);
    const records = deps.approvals.open().map((e) => e.value);
    const decided = new Set(records.filter((r) => r.status !== "pending").map((r) => r.approvalId));
    const votes = new Map(records.map((r) => [r.approvalId, r.votes]));
    const mine = requests.filter((r) => !decided.has(r.data.approvalId) && mayDecide(doc, approver, authorityFacts(r)).ok);
    const outcomes = await Promise.all(mine.map((r) => deps.outcomeOf(r.domain, r.callId)));
    const listed: PendingApproval[] = [];
    mine.forEach((r, i) => {
      if (settledOnStream(outcomes[i]!)) deps.requests.forget(r);
      else listed.push(pendingApprovalOf(r, votes.get(r.data.approvalId)));
    });
    listed.sort((a, b) => a.requestedAt.localeCompare(b.requestedAt) || a.approvalId.localeCompare(b.approvalId));
    deps.log.debug({ approver, listed: listed.length }, "pending approvals listed");
    return { ok: true, value: listed };
  };
}

function authorityFacts(r: ApprovalRequested) {
  return {
    grade: r.data.grade,
    mode: r.mode,
    requester: r.principal,
    requesterMayConfirm: r.data.approvers.requesterMayConfirm,
    chain: (r.data.chain ?? []).map((l) => l.principal),
  };
}
