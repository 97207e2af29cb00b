import { ROOT_CONTEXT, trace, TraceFlags, type Context, type SpanContext } from "@opentelemetry/api";
import { z } from "zod";

/**
 * A W3C trace context `traceparent` (https://www.w3.org/TR/trace-context/#traceparent-header),
 * version 00: `00-<32 hex trace id>-<16 hex parent span id>-<2 hex flags>`, lowercase, ids not
 * all zeros. It is what an event carries so that every stage's span of a call joins one trace.
 */
export const TRACEPARENT_PATTERN = /^00-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}$/;
export const TraceparentSchema = z.string().regex(TRACEPARENT_PATTERN);

let tracing = false;

/**
 * Turns Warden's own tracing on for this process: stages open spans and the events they write
 * carry the active span's context. Set only by whoever started a tracer provider
 * (`startTracing` of `@warden/service-kit`); off, nothing on the hot path touches a context.
 * Returns the undo.
 */
export function enableTracing(): () => void {
  tracing = true;
  return () => {
    tracing = false;
  };
}

/** Whether a tracer provider was started for Warden in this process (see {@link enableTracing}). */
export function tracingEnabled(): boolean {
  return tracing;
}

/** The `traceparent` of a span context; undefined for an invalid one (a non-recording no-op span). */
export function traceparentOf(sc: SpanContext): string | undefined {
  const value = `00-${sc.traceId}-${sc.spanId}-${(sc.traceFlags & 0xff).toString(16).padStart(2, "0")}`;
  return TRACEPARENT_PATTERN.test(value) ? value : undefined;
}

/**
 * The `traceparent` of the span active now, whatever started it (the caller's own tracer
 * provider, or Warden's); undefined when none is. What an agent's request carries, so the agent's
 * span is the parent of its call's trace.
 */
export function activeTraceparent(): string | undefined {
  const span = trace.getActiveSpan();
  return span === undefined ? undefined : traceparentOf(span.spanContext());
}

/** The remote span context a `traceparent` names; undefined for anything not one. */
export function spanContextOfTraceparent(traceparent: string | undefined): SpanContext | undefined {
  if (traceparent === undefined || !TRACEPARENT_PATTERN.test(traceparent)) return undefined;
  const [, traceId, spanId, flags] = traceparent.split("-") as [string, string, string, string];
  return { traceId, spanId, traceFlags: Number.parseInt(flags, 16) & TraceFlags.SAMPLED, isRemote: true };
}

/** A context whose parent is the span a `traceparent` names (the root context when it names none). */
export function contextOfTraceparent(traceparent: string | undefined): Context {
  const sc = spanContextOfTraceparent(traceparent);
  return sc === undefined ? ROOT_CONTEXT : trace.setSpanContext(ROOT_CONTEXT, sc);
}

/**
 * The `traceparent` an event answering a cause carries: the span active as it is built when
 * Warden's tracing is on (the stage's span), else the cause's own, so a call stays one trace
 * through processes that do not trace. Nothing is added when tracing is off.
 */
export function traceparentForAnswer(causeTraceparent: string | undefined): string | undefined {
  if (!tracing) return causeTraceparent;
  return activeTraceparent() ?? causeTraceparent;
}
