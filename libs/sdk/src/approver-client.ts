import { requestRpc, type Bus } from "@warden/bus";
import {
  DECISION_REFUSALS,
  decideSubject,
  DecisionReplySchema,
  fail,
  isSafeToken,
  ok,
  PendingApprovalSchema,
  stageFilterSubject,
  approverPendingSubject,
  type ApprovalRequested,
  type DecisionReply,
  type DecisionRequest,
  type Outcome,
  type PendingApproval,
  type WardenError,
} from "@warden/contracts";
import { decodeCallMessage } from "@warden/projections";
import { z } from "zod";

const RPC_TIMEOUT_MS = 5_000;

/** A decision's answer; the approver never answering (timeout, no responder) is a refusal too. */
export type DecisionOutcome = DecisionReply | { readonly ok: false; readonly refusal: "UNAVAILABLE"; readonly message: string };

export interface ApprovalWatch extends AsyncIterable<ApprovalRequested> {
  stop(): void;
}

export interface ApproverClientOptions {
  readonly bus: Bus;
  /** The deciding principal; the second token of `warden.decide.<approver>.<approvalId>`. */
  readonly approver: string;
  readonly timeoutMs?: number;
}

export interface ApproverClient {
  readonly approver: string;
  pending(): Promise<Outcome<PendingApproval[]>>;
  /** New approval requests as they are appended (not the ones already pending). */
  watch(): ApprovalWatch;
  approve(approvalId: string, argsHash: string, reason?: string): Promise<DecisionOutcome>;
  deny(approvalId: string, argsHash: string, reason: string): Promise<DecisionOutcome>;
}

const PendingListSchema = z.array(PendingApprovalSchema);

export function createApproverClient(options: ApproverClientOptions): ApproverClient {
  const { bus, approver } = options;
  const timeoutMs = options.timeoutMs ?? RPC_TIMEOUT_MS;

  async function decide(approvalId: string, request: DecisionRequest): Promise<DecisionOutcome> {
    if (!isSafeToken(approver) || !isSafeToken(approvalId)) {
      return { ok: false, refusal: "MALFORMED", message: "approver and approvalId must be safe tokens (^[A-Za-z0-9_-]{1,128}$)" };
    }
    const reply = await requestRpc(bus, decideSubject(approver, approvalId), request, timeoutMs);
    if (reply.ok) {
      const parsed = DecisionReplySchema.safeParse(reply.value);
      return parsed.success ? parsed.data : { ok: false, refusal: "MALFORMED", message: "unexpected decision reply" };
    }
    return refusalFromError(reply.error);
  }

  return {
    approver,
    async pending() {
      if (!isSafeToken(approver)) return fail("INVALID_REQUEST", "the approver must be a safe token (^[A-Za-z0-9_-]{1,128}$)");
      const reply = await requestRpc(bus, approverPendingSubject(approver), {}, timeoutMs);
      if (!reply.ok) return reply;
      const parsed = PendingListSchema.safeParse(reply.value);
      return parsed.success ? ok(parsed.data) : fail("INTERNAL", "unexpected pending approvals reply");
    },
    watch() {
      return watchApprovals(bus);
    },
    approve(approvalId, argsHash, reason) {
      return decide(approvalId, { decision: "grant", argsHash, ...(reason === undefined ? {} : { reason }) });
    },
    deny(approvalId, argsHash, reason) {
      return decide(approvalId, { decision: "deny", argsHash, reason });
    },
  };
}

/** A refusal may come back as an error reply; its `details.refusal` keeps the reason code. */
function refusalFromError(error: WardenError): DecisionOutcome {
  const refusal = error.details?.["refusal"];
  if (typeof refusal === "string" && (DECISION_REFUSALS as readonly string[]).includes(refusal)) {
    return { ok: false, refusal: refusal as (typeof DECISION_REFUSALS)[number], message: error.message };
  }
  if (error.code === "UNAVAILABLE") return { ok: false, refusal: "UNAVAILABLE", message: error.message };
  // the server refused the request: this connection's identity may not decide as that approver
  if (error.code === "FORBIDDEN") return { ok: false, refusal: "NOT_AUTHORISED", message: error.message };
  return { ok: false, refusal: "MALFORMED", message: `${error.code}: ${error.message}` };
}

function watchApprovals(bus: Bus): ApprovalWatch {
  const sub = bus.nc.subscribe(stageFilterSubject("ApprovalRequested"));
  async function* events(): AsyncGenerator<ApprovalRequested> {
    for await (const msg of sub) {
      // the stream readers' decoder: whatever arrives (too deep, not UTF-8, another call's event) is skipped
      const decoded = decodeCallMessage(msg.subject, msg.data);
      if (decoded.ok && decoded.event.type === "ApprovalRequested") yield decoded.event;
    }
  }
  const iterator = events();
  return {
    [Symbol.asyncIterator]: () => iterator,
    stop: () => sub.unsubscribe(),
  };
}
