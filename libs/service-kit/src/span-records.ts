import { SpanKind, SpanStatusCode, TraceFlags, type Attributes, type HrTime, type SpanContext } from "@opentelemetry/api";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { JsonTraceSerializer } from "@opentelemetry/otlp-transformer";
import { resourceFromAttributes, type Resource } from "@opentelemetry/resources";
import type { ReadableSpan } from "@opentelemetry/sdk-trace";
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from "@opentelemetry/semantic-conventions";
import { WARDEN_TRACER } from "@warden/bus";
import { tracesUrl } from "./tracing.js";

/**
 * A finished span known from a record rather than timed by a tracer (`warden audit export --otlp`
 * rebuilds them from a call's events): its ids, times, attributes and span events are given.
 */
export interface SpanRecord {
  /** 32 lowercase hex digits. */
  readonly traceId: string;
  /** 16 lowercase hex digits. */
  readonly spanId: string;
  readonly parentSpanId?: string;
  /** The parent is another process's span, whose context came in an event (a stage's parent). */
  readonly remoteParent?: boolean;
  readonly name: string;
  /** The `service.name` of the span's resource. */
  readonly service: string;
  /** Epoch milliseconds (fractions allowed). */
  readonly startMs: number;
  readonly endMs: number;
  readonly attributes: Attributes;
  /** Set when the span's work failed: its status is an error with this message. */
  readonly error?: string;
  readonly events: readonly { readonly name: string; readonly timeMs: number; readonly attributes: Attributes }[];
}

/** How many spans one OTLP request carries (the SDK's batch processor's default). */
export const SPAN_RECORDS_PER_REQUEST = 512;

/** How long one request may take, retries of a busy receiver included. */
export const SPAN_RECORDS_TIMEOUT_MS = 10_000;

export interface SpanRecordsOptions {
  /** `service.version` of every resource. */
  readonly serviceVersion?: string;
}

/**
 * The OTLP/JSON `ExportTraceServiceRequest` bodies of `spans`, at most
 * {@link SPAN_RECORDS_PER_REQUEST} spans each: what an OTLP/HTTP receiver accepts at
 * `/v1/traces`, one per line being the Collector's file format. Encoded by the OpenTelemetry
 * serializer the exporter itself uses, so a file and a post say the same.
 */
export function otlpJsonRequests(spans: readonly SpanRecord[], o: SpanRecordsOptions = {}): string[] {
  const decoder = new TextDecoder();
  return batches(readableSpans(spans, o)).map((batch) => decoder.decode(JsonTraceSerializer.serializeRequest(batch)));
}

export type SpanRecordsPosted = { readonly ok: true; readonly requests: number } | { readonly ok: false; readonly requests: number; readonly reason: string };

/**
 * Posts `spans` as OTLP/JSON to `<endpoint>/v1/traces` with the OpenTelemetry OTLP/HTTP exporter
 * (its retries of a busy receiver, its timeout), one request after another; stops at the first
 * that fails and says why.
 */
export async function postSpanRecords(spans: readonly SpanRecord[], endpoint: string, o: SpanRecordsOptions & { readonly timeoutMs?: number } = {}): Promise<SpanRecordsPosted> {
  const exporter = new OTLPTraceExporter({ url: tracesUrl(endpoint), timeoutMillis: o.timeoutMs ?? SPAN_RECORDS_TIMEOUT_MS });
  let requests = 0;
  try {
    for (const batch of batches(readableSpans(spans, o))) {
      const result = await new Promise<{ code: number; error?: Error }>((resolve) => exporter.export(batch, resolve));
      if (result.error !== undefined || result.code !== 0) return { ok: false, requests, reason: reasonOf(result.error) };
      requests++;
    }
    return { ok: true, requests };
  } finally {
    await exporter.shutdown();
  }
}

function reasonOf(error: Error | undefined): string {
  if (error === undefined) return "the receiver refused the export";
  // a refused connection is an AggregateError (one per address tried) with an empty message
  const inner = error instanceof AggregateError ? (error.errors as unknown[]).find((e): e is Error => e instanceof Error) : undefined;
  const code = (inner ?? error) as Error & { code?: unknown; data?: unknown };
  const text = code.message || (typeof code.code === "string" ? code.code : error.name);
  const body = typeof code.data === "string" && code.data.length > 0 ? `: ${code.data.slice(0, 200)}` : "";
  return `${text}${body}`;
}

function batches<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += SPAN_RECORDS_PER_REQUEST) out.push(items.slice(i, i + SPAN_RECORDS_PER_REQUEST));
  return out;
}

/** The SDK's view of finished spans, which its serializer and exporter take; one resource object per service, as they group by it. */
function readableSpans(spans: readonly SpanRecord[], o: SpanRecordsOptions): ReadableSpan[] {
  const resources = new Map<string, Resource>();
  const resourceOf = (service: string): Resource => {
    let r = resources.get(service);
    if (r === undefined) {
      r = resourceFromAttributes({ [ATTR_SERVICE_NAME]: service, ...(o.serviceVersion === undefined ? {} : { [ATTR_SERVICE_VERSION]: o.serviceVersion }) });
      resources.set(service, r);
    }
    return r;
  };
  return spans.map((s): ReadableSpan => {
    const context: SpanContext = { traceId: s.traceId, spanId: s.spanId, traceFlags: TraceFlags.SAMPLED };
    const startTime = hrTime(s.startMs);
    const endTime = hrTime(Math.max(s.startMs, s.endMs));
    return {
      name: s.name,
      kind: SpanKind.INTERNAL,
      spanContext: () => context,
      ...(s.parentSpanId === undefined ? {} : { parentSpanContext: { traceId: s.traceId, spanId: s.parentSpanId, traceFlags: TraceFlags.SAMPLED, isRemote: s.remoteParent ?? false } }),
      startTime,
      endTime,
      duration: hrTime(Math.max(0, s.endMs - s.startMs)),
      status: s.error === undefined ? { code: SpanStatusCode.UNSET } : { code: SpanStatusCode.ERROR, message: s.error },
      attributes: s.attributes,
      links: [],
      events: s.events.map((e) => ({ name: e.name, time: hrTime(e.timeMs), attributes: e.attributes, droppedAttributesCount: 0 })),
      ended: true,
      resource: resourceOf(s.service),
      instrumentationScope: { name: WARDEN_TRACER },
      droppedAttributesCount: 0,
      droppedEventsCount: 0,
      droppedLinksCount: 0,
    };
  });
}

/** Milliseconds as the SDK's [seconds, nanoseconds]. */
function hrTime(ms: number): HrTime {
  const seconds = Math.floor(ms / 1000);
  const nanos = Math.min(999_999_999, Math.round((ms - seconds * 1000) * 1e6));
  return [seconds, nanos];
}
