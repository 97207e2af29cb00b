import type { Logger } from "@warden/bus";
import { parseApproverDeliverSubject } from "@warden/contracts/subjects";
import { wardenError } from "@warden/contracts/errors";
import { type Reply } from "@warden/contracts/descriptor";
import { DeliveryRequestSchema, type DeliveryReply } from "@warden/contracts/approval";
import { type JsonValue } from "@warden/contracts/json";
import { mayDecide } from "@warden/policy-engine";
import type { PolicyDocumentFollower } from "@warden/service-kit";
import type { ApprovalStore } from "../approval-store.js";
import type { DeliveryCursors } from "../delivery-cursors.js";
import { settledOnStream, type StreamOutcome } from "../domain/settled-on-stream.js";
import type { RequestedApprovals } from "../requested-approvals.js";
import { authorityFacts } from "../domain/who-may-decide.js";

export interface DeliverDeps {
  readonly log: Logger;
  readonly requests: RequestedApprovals;
  readonly approvals: ApprovalStore;
  readonly documents: PolicyDocumentFollower;
  readonly cursors: DeliveryCursors;
  readonly outcomeOf: (domain: string, callId: string) => Promise<StreamOutcome>;
  /** True once the service is stopping: a waiting delivery answers with what it has. */
  readonly stopping: () => boolean;
}

/** A wait for new requests looks again at least this often (one that arrived while it was being set up is not missed for long). */
const RECHECK_MS = 1_000;

/**
 * `warden.approver.deliver.<approver>.<durable>`: a person's durable delivery. Records the app's
 * acknowledgement, then answers the approval requests after it that this person may decide and
 * that are still open (oldest first), waiting up to `waitMs` for one to arrive. The approver and
 * durable are the subject's tokens (NATS permissions pin the approver to the caller), so a person
 * can move only their own deliveries.
 */
export function deliverHandler(deps: DeliverDeps) {
  return async (payload: unknown, msg: { subject: string }): Promise<Reply> => {
    const target = parseApproverDeliverSubject(msg.subject);
    const req = DeliveryRequestSchema.safeParse(payload ?? {});
    if (target === undefined || !req.success) {
      return { ok: false, error: wardenError("INVALID_REQUEST", `bad delivery request on ${msg.subject}: ${req.error?.issues[0]?.message ?? "malformed subject"}`) };
    }
    const { approver, durable } = target;
    const cursor = await deps.cursors.advance(approver, durable, req.data.ack);
    const deadline = Date.now() + req.data.waitMs;
    for (;;) {
      const due = await deliverable(deps, approver, cursor, req.data.max);
      const left = deadline - Date.now();
      if (due.length > 0 || left <= 0 || deps.stopping()) {
        deps.log.debug({ approver, durable, cursor, delivered: due.length }, "approval requests delivered");
        const reply: DeliveryReply = { cursor, deliveries: due };
        return { ok: true, value: reply as unknown as JsonValue };
      }
      await deps.requests.arrival(Math.min(left, RECHECK_MS));
    }
  };
}

async function deliverable(deps: DeliverDeps, approver: string, cursor: number, max: number): Promise<DeliveryReply["deliveries"]> {
  const now = new Date();
  const doc = deps.documents.current();
  const { requests } = await deps.requests.open(now);
  const decided = new Set(deps.approvals.open().filter((e) => e.value.status !== "pending").map((e) => e.value.approvalId));
  const after = requests
    .map((request) => ({ seq: deps.requests.seqOf(request) ?? 0, request }))
    .filter(({ seq, request }) => seq > cursor && !decided.has(request.data.approvalId) && mayDecide(doc, approver, authorityFacts(request)).ok)
    .sort((a, b) => a.seq - b.seq);
  const due: DeliveryReply["deliveries"] = [];
  for (const d of after) {
    if (due.length >= max) break;
    if (settledOnStream(await deps.outcomeOf(d.request.domain, d.request.callId))) deps.requests.forget(d.request);
    else due.push(d);
  }
  return due;
}
