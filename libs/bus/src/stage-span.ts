import { context, SpanStatusCode, trace, type Attributes, type Span } from "@opentelemetry/api";
import { contextOfTraceparent, type WardenEvent } from "@warden/contracts/events";
import type { StageSettlement } from "./bus-observer.js";

/** The instrumentation scope of Warden's own spans. */
export const WARDEN_TRACER = "warden";

/**
 * What a span says of the call an event belongs to: call id, tool, domain, event type, and the
 * grade, decision and rule ids when the event has them (`warden.*` attributes, docs/operations.md).
 */
export function callAttributes(event: WardenEvent): Attributes {
  const data = event.data as { readonly grade?: unknown; readonly decision?: unknown; readonly ruleIds?: unknown };
  return {
    "warden.call_id": event.callId,
    "warden.tool": event.tool,
    "warden.domain": event.domain,
    "warden.principal": event.principal,
    "warden.mode": event.mode,
    "warden.event_type": event.type,
    ...decisionAttributes(data),
  };
}

function decisionAttributes(data: { readonly grade?: unknown; readonly decision?: unknown; readonly ruleIds?: unknown }): Attributes {
  return {
    ...(typeof data.grade === "string" ? { "warden.grade": data.grade } : {}),
    ...(typeof data.decision === "string" ? { "warden.decision": data.decision } : {}),
    ...(Array.isArray(data.ruleIds) && data.ruleIds.every((r) => typeof r === "string") ? { "warden.rule_ids": data.ruleIds as string[] } : {}),
  };
}

/**
 * Runs one stage's handling of `event` inside span `stage <durable>`, whose parent is the span
 * the event's `traceparent` names (a new trace when it has none); the span is active while the
 * handler runs, so what the handler writes carries it. Called only when tracing is on.
 */
export async function inStageSpan(stage: string, event: WardenEvent, run: () => Promise<{ readonly settled: StageSettlement; readonly reason?: string }>): Promise<void> {
  const tracer = trace.getTracer(WARDEN_TRACER);
  const span = tracer.startSpan(`stage ${stage}`, { attributes: { ...callAttributes(event), "warden.stage": stage } }, contextOfTraceparent(event.traceparent));
  await withinSpan(span, async () => {
    const r = await run();
    span.setAttribute("warden.outcome", r.settled);
    if (r.settled !== "ack") span.setStatus({ code: SpanStatusCode.ERROR, message: r.reason ?? r.settled });
  });
}

/**
 * Runs `run` with `span` active (what it writes carries the span); a throw is recorded on the span
 * as its error and thrown on; the span ends either way, at `endTime` when given (a span recorded
 * after the fact, as the approver's `approval wait`).
 */
export async function withinSpan<T>(span: Span, run: () => Promise<T>, endTime?: () => Date): Promise<T> {
  try {
    return await context.with(trace.setSpan(context.active(), span), run);
  } catch (err) {
    span.recordException(err as Error);
    span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
    throw err;
  } finally {
    span.end(endTime?.());
  }
}

/**
 * Notes an append on the active span (a span event `warden.append` with the type and result), and
 * the decision and rule ids of what the stage wrote (the policy stage's ToolPolicyChecked, a
 * refusal), so a stage's span says what it decided. Called only when tracing is on.
 */
export function noteAppend(event: WardenEvent, status: "written" | "already_written"): void {
  const span: Span | undefined = trace.getActiveSpan();
  if (span === undefined || !span.isRecording()) return;
  span.addEvent("warden.append", { "warden.event_type": event.type, "warden.event_id": event.eventId, "warden.append_result": status });
  if (event.type === "ToolPolicyChecked" || event.type === "ToolCallRejected") span.setAttributes(decisionAttributes(event.data));
}
