import { context, ROOT_CONTEXT, trace, TraceFlags } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requestedEvent } from "../test-support/requested-event.js";
import { answerCallEvent, nextCallEvent, stampNow } from "./envelope.js";
import { causeOf } from "./event-hash.js";
import { WardenEventSchema, type ToolCallRequested } from "./events.js";
import { activeTraceparent, contextOfTraceparent, enableTracing, spanContextOfTraceparent, TraceparentSchema, traceparentOf } from "./trace-context.js";

const AGENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
const STAGE = { traceId: "4bf92f3577b34da6a3ce929d0e0e4736", spanId: "b7ad6b7169203331", traceFlags: TraceFlags.SAMPLED };

function request(traceparent?: string): ToolCallRequested {
  return requestedEvent(traceparent === undefined ? {} : { traceparent });
}

const rejected = { stage: "registry", error: { code: "UNKNOWN_TOOL", message: "no", retryable: false } } as const;

/** Runs `fn` with a (non-recording) span of context STAGE active, as a stage's span is. */
function inStageSpan<T>(fn: () => T): T {
  return context.with(trace.setSpan(ROOT_CONTEXT, trace.wrapSpanContext(STAGE)), fn);
}

beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
});
afterAll(() => {
  context.disable();
});

describe("traceparent", () => {
  it("accepts a W3C version 00 traceparent and refuses anything else", () => {
    expect(TraceparentSchema.safeParse(AGENT).success).toBe(true);
    for (const bad of [
      "",
      AGENT.toUpperCase(),
      AGENT.replace(/^00/, "01"),
      AGENT.replace(/^00/, "ff"),
      `00-${"0".repeat(32)}-00f067aa0ba902b7-01`,
      `00-4bf92f3577b34da6a3ce929d0e0e4736-${"0".repeat(16)}-01`,
      `${AGENT}-extra`,
      AGENT.slice(0, -1),
      ` ${AGENT}`,
    ]) {
      expect(TraceparentSchema.safeParse(bad).success, bad).toBe(false);
    }
  });

  it("is read back as the remote span context it names, and written from one", () => {
    const sc = spanContextOfTraceparent(AGENT)!;
    expect(sc).toEqual({ traceId: "4bf92f3577b34da6a3ce929d0e0e4736", spanId: "00f067aa0ba902b7", traceFlags: TraceFlags.SAMPLED, isRemote: true });
    expect(traceparentOf(sc)).toBe(AGENT);
    expect(trace.getSpanContext(contextOfTraceparent(AGENT))).toEqual(sc);
    expect(spanContextOfTraceparent("00-nope")).toBeUndefined();
    expect(contextOfTraceparent(undefined)).toBe(ROOT_CONTEXT);
  });

  it("names the active span, whoever started it (what an agent's request carries)", () => {
    expect(activeTraceparent()).toBeUndefined();
    expect(inStageSpan(() => activeTraceparent())).toBe("00-4bf92f3577b34da6a3ce929d0e0e4736-b7ad6b7169203331-01");
  });
});

describe("the traceparent of an answering event", () => {
  it("with tracing off, is the cause's: nothing is added, even under an active span", () => {
    expect(nextCallEvent(request(AGENT), "ToolCallRejected", rejected, stampNow()).traceparent).toBe(AGENT);
    const untraced = inStageSpan(() => nextCallEvent(request(), "ToolCallRejected", rejected, stampNow()));
    expect(untraced).not.toHaveProperty("traceparent");
    const cause = request();
    expect(inStageSpan(() => answerCallEvent(cause, causeOf(cause), "ToolCallRejected", rejected, stampNow()))).not.toHaveProperty("traceparent");
  });

  it("with tracing on, is the active span's (the stage's), else the cause's when no span is active", () => {
    const disable = enableTracing();
    try {
      const answered = inStageSpan(() => nextCallEvent(request(AGENT), "ToolCallRejected", rejected, stampNow()));
      expect(answered.traceparent).toBe("00-4bf92f3577b34da6a3ce929d0e0e4736-b7ad6b7169203331-01");
      expect(WardenEventSchema.safeParse(answered).success).toBe(true);
      const cause = request(AGENT);
      expect(answerCallEvent(cause, causeOf(cause), "ToolCallRejected", rejected, stampNow()).traceparent).toBe(AGENT);
      expect(nextCallEvent(request(AGENT), "ToolCallRejected", rejected, stampNow()).traceparent).toBe(AGENT);
      expect(nextCallEvent(request(), "ToolCallRejected", rejected, stampNow())).not.toHaveProperty("traceparent");
    } finally {
      disable();
    }
  });
});
