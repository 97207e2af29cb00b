import { trace } from "@opentelemetry/api";
import { callAttributes, WARDEN_TRACER, withinSpan } from "@warden/bus";
import { contextOfTraceparent, tracingEnabled, type ApprovalRequested } from "@warden/contracts/events";

export interface ApprovalWaitEnd {
  readonly outcome: "granted" | "denied" | "expired";
  /** Who decided (absent for an expiry). */
  readonly decidedBy?: string;
  /** When the wait ended: the decision's time. */
  readonly at: string;
}

/**
 * Runs the appending of an approval's decision inside span `approval wait`: from the request's
 * time to the decision's, a child of the stage that asked, so a trace shows how long the call
 * waited for a person; the decision event carries it, and the granted executor stage is its child.
 * The span is made when the wait ends (nothing runs while a person thinks). Only when tracing is on.
 */
export async function inApprovalWaitSpan<T>(requested: ApprovalRequested, end: ApprovalWaitEnd, run: () => Promise<T>): Promise<T> {
  if (!tracingEnabled()) return run();
  const span = trace.getTracer(WARDEN_TRACER).startSpan(
    "approval wait",
    {
      startTime: new Date(requested.ts),
      attributes: {
        ...callAttributes(requested),
        "warden.approval_id": requested.data.approvalId,
        "warden.approval.outcome": end.outcome,
        ...(end.decidedBy === undefined ? {} : { "warden.approval.decided_by": end.decidedBy }),
      },
    },
    contextOfTraceparent(requested.traceparent),
  );
  return withinSpan(span, run, () => new Date(Math.max(Date.parse(end.at), Date.parse(requested.ts))));
}
