import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { otlpJsonRequests, postSpanRecords, SPAN_RECORDS_PER_REQUEST, type SpanRecord } from "./span-records.js";

const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";

function record(i: number, o: Partial<SpanRecord> = {}): SpanRecord {
  return {
    traceId: TRACE,
    spanId: (i + 1).toString(16).padStart(16, "0"),
    name: `stage s${i}`,
    service: "warden-policy",
    startMs: 1_893_456_000_000.5,
    endMs: 1_893_456_000_012,
    attributes: { "warden.call_id": `c${i}`, "warden.rule_ids": ["a", "b"], "warden.ok": true },
    events: [{ name: "warden.append", timeMs: 1_893_456_000_011, attributes: { "warden.event_type": "ToolPolicyChecked" } }],
    ...o,
  };
}

interface Body {
  resourceSpans: {
    resource: { attributes: { key: string; value: { stringValue?: string } }[] };
    scopeSpans: { scope: { name: string }; spans: Record<string, unknown>[] }[];
  }[];
}

describe("span records as OTLP", () => {
  it("encodes the given ids, parent, times, attributes, status and events as OTLP JSON, one resource per service", () => {
    const [line] = otlpJsonRequests([record(0, { parentSpanId: "00f067aa0ba902b7", remoteParent: true }), record(1, { service: "warden-executor", error: "HANDLER_ERROR" })], { serviceVersion: "9.9.9" });
    const body = JSON.parse(line!) as Body;
    expect(body.resourceSpans.map((r) => r.resource.attributes.find((a) => a.key === "service.name")?.value.stringValue)).toEqual(["warden-policy", "warden-executor"]);
    expect(body.resourceSpans[0]!.resource.attributes).toContainEqual({ key: "service.version", value: { stringValue: "9.9.9" } });
    const [policy] = body.resourceSpans[0]!.scopeSpans[0]!.spans;
    expect(body.resourceSpans[0]!.scopeSpans[0]!.scope.name).toBe("warden");
    expect(policy).toMatchObject({
      traceId: TRACE,
      spanId: "0000000000000001",
      parentSpanId: "00f067aa0ba902b7",
      name: "stage s0",
      startTimeUnixNano: "1893456000000500000",
      endTimeUnixNano: "1893456000012000000",
      status: { code: 0 },
    });
    expect(policy!["attributes"]).toContainEqual({ key: "warden.rule_ids", value: { arrayValue: { values: [{ stringValue: "a" }, { stringValue: "b" }] } } });
    expect(policy!["events"]).toEqual([expect.objectContaining({ name: "warden.append", timeUnixNano: "1893456000011000000" })]);
    expect(body.resourceSpans[1]!.scopeSpans[0]!.spans[0]).toMatchObject({ status: { code: 2, message: "HANDLER_ERROR" } });
  });

  it("splits many spans into requests of at most SPAN_RECORDS_PER_REQUEST, and makes none of none", () => {
    const lines = otlpJsonRequests(Array.from({ length: SPAN_RECORDS_PER_REQUEST + 1 }, (_, i) => record(i)));
    expect(lines.map((l) => (JSON.parse(l) as Body).resourceSpans[0]!.scopeSpans[0]!.spans.length)).toEqual([SPAN_RECORDS_PER_REQUEST, 1]);
    expect(otlpJsonRequests([])).toEqual([]);
  });

  describe("posting", () => {
    let server: Server;
    let url: string;
    const received: { path: string; type: string; body: string }[] = [];
    let answer = 200;
    beforeAll(async () => {
      server = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on("data", (c: Buffer) => chunks.push(c));
        req.on("end", () => {
          received.push({ path: req.url ?? "", type: req.headers["content-type"] ?? "", body: Buffer.concat(chunks).toString("utf8") });
          res.writeHead(answer, { "content-type": "application/json" }).end(answer === 200 ? "{}" : '{"message":"bad spans"}');
        });
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it("posts each request as OTLP JSON to <endpoint>/v1/traces with the OpenTelemetry exporter", async () => {
      received.length = 0;
      expect(await postSpanRecords([record(0), record(1)], `${url}/`)).toEqual({ ok: true, requests: 1 });
      expect(received.map((r) => [r.path, r.type])).toEqual([["/v1/traces", "application/json"]]);
      expect((JSON.parse(received[0]!.body) as Body).resourceSpans[0]!.scopeSpans[0]!.spans.map((s) => s["spanId"])).toEqual(["0000000000000001", "0000000000000002"]);
    });

    it("says why a receiver refused the spans", async () => {
      answer = 400;
      try {
        const r = await postSpanRecords([record(0)], url);
        expect(r).toMatchObject({ ok: false, requests: 0 });
        expect(!r.ok && r.reason).toMatch(/Bad Request/);
      } finally {
        answer = 200;
      }
    });

    it("says why a receiver could not be reached", async () => {
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
      const port = (closed.address() as AddressInfo).port;
      await new Promise<void>((resolve) => closed.close(() => resolve()));
      // a short timeout: the exporter retries a refused connection while its time lasts
      const r = await postSpanRecords([record(0)], `http://127.0.0.1:${port}`, { timeoutMs: 300 });
      expect(r).toMatchObject({ ok: false, requests: 0 });
      expect(!r.ok && r.reason).toMatch(/ECONNREFUSED/);
    });
  });
});
