import { SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { withinSpan } from "@warden/bus";
import type { ToolResult } from "@warden/contracts/events";

/** The instrumentation scope of the agent side's spans. */
const SDK_TRACER = "@warden/sdk";

export interface CallSpanFacts {
  readonly callId: string;
  readonly tool: string;
  readonly principal: string;
  readonly mode: string;
}

/**
 * Runs one call inside span `execute_tool <tool>`, the root of the call's stages: the request is
 * built while it is active, so its `traceparent` names it and every stage's span is its child. It
 * ends when the caller has its answer (the result, or pending). Attributes follow OpenTelemetry's
 * GenAI (`gen_ai.*`: a tool execution) and messaging (`messaging.*`: a publish on NATS)
 * conventions, plus Warden's own. With no tracer provider registered (the agent traces nothing)
 * the span records nothing and the request carries whatever span was active, as before.
 */
export function inCallSpan(f: CallSpanFacts, run: () => Promise<ToolResult>): Promise<ToolResult> {
  const attributes = {
    "gen_ai.operation.name": "execute_tool",
    "gen_ai.tool.name": f.tool,
    "gen_ai.tool.call.id": f.callId,
    "messaging.system": "nats",
    "messaging.operation.type": "send",
    "warden.call_id": f.callId,
    "warden.tool": f.tool,
    "warden.principal": f.principal,
    "warden.mode": f.mode,
  };
  const span = trace.getTracer(SDK_TRACER).startSpan(`execute_tool ${f.tool}`, { kind: SpanKind.PRODUCER, attributes });
  return withinSpan(span, async () => {
    const r = await run();
    span.setAttribute("warden.status", r.status);
    if (!r.ok && r.status !== "pending") span.setStatus({ code: SpanStatusCode.ERROR, message: r.error?.code ?? r.status });
    return r;
  });
}
