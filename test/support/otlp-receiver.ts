import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** One OTLP/JSON attribute value (what the exporter's JSON encoding writes). */
interface AnyValue {
  readonly stringValue?: string;
  readonly boolValue?: boolean;
  readonly intValue?: number | string;
  readonly arrayValue?: { readonly values?: readonly AnyValue[] };
}
interface OtlpSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly name: string;
  readonly startTimeUnixNano?: string | number;
  readonly endTimeUnixNano?: string | number;
  readonly attributes?: readonly { readonly key: string; readonly value: AnyValue }[];
}
interface OtlpTraces {
  readonly resourceSpans?: readonly {
    readonly resource?: { readonly attributes?: readonly { readonly key: string; readonly value: AnyValue }[] };
    readonly scopeSpans?: readonly { readonly spans?: readonly OtlpSpan[] }[];
  }[];
}

/** A span as the receiver read it: ids in hex, attributes as plain values, its resource's service.name. */
export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string | undefined;
  readonly name: string;
  readonly service: unknown;
  /** Epoch milliseconds (to the microsecond: what a number holds exactly). */
  readonly startMs: number;
  readonly endMs: number;
  readonly attributes: Record<string, unknown>;
}

const plain = (v: AnyValue): unknown =>
  v.stringValue ?? v.boolValue ?? (v.intValue === undefined ? undefined : Number(v.intValue)) ?? v.arrayValue?.values?.map(plain);

const millis = (nanos: string | number | undefined): number => Number(BigInt(nanos ?? 0) / 1000n) / 1000;

/** A local OTLP/HTTP receiver: what a collector would be, accepting the exporter's JSON at POST /v1/traces. */
export interface OtlpReceiver {
  /** The base URL to give as OTEL_EXPORTER_OTLP_ENDPOINT. */
  readonly url: string;
  /** Every span received so far, in arrival order. */
  readonly spans: ReceivedSpan[];
  /** The content type of each export received. */
  readonly contentTypes: string[];
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const contentTypes: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (req.method !== "POST" || req.url !== "/v1/traces") {
        res.writeHead(404).end();
        return;
      }
      contentTypes.push(req.headers["content-type"] ?? "");
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as OtlpTraces;
      for (const rs of body.resourceSpans ?? []) {
        const service = plain(rs.resource?.attributes?.find((a) => a.key === "service.name")?.value ?? {});
        for (const ss of rs.scopeSpans ?? []) {
          for (const s of ss.spans ?? []) {
            spans.push({
              traceId: s.traceId,
              spanId: s.spanId,
              parentSpanId: s.parentSpanId || undefined,
              name: s.name,
              service,
              startMs: millis(s.startTimeUnixNano),
              endMs: millis(s.endTimeUnixNano),
              attributes: Object.fromEntries((s.attributes ?? []).map((a) => [a.key, plain(a.value)])),
            });
          }
        }
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, spans, contentTypes, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
