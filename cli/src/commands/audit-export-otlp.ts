import { resolve } from "node:path";
import { ConfigError } from "@warden/bus";
import { loadTracingConfig, otlpJsonRequests, postSpanRecords, tracesUrl, WARDEN_VERSION } from "@warden/service-kit";
import { readAuditCallEvents } from "../audit-reader.js";
import type { AUDIT_EXPORT_OPTIONS } from "../command-list.js";
import type { CommandInput } from "../args.js";
import { withBus } from "../connect.js";
import { rebuildCallSpans } from "../domain/call-spans.js";
import { parseTimeBound } from "../domain/time-range.js";
import { CliError, EXIT_OK, usageError } from "../errors.js";
import { writeNamedFile } from "../named-file.js";
import type { CommandIo } from "../io.js";
import { emit } from "../output.js";

type Target = { readonly file: string } | { readonly endpoint: string };

/**
 * `warden audit export --otlp [--endpoint URL | --out FILE] [--since T] [--until T]`: the
 * OpenTelemetry spans of the calls requested in the range, rebuilt from their recorded events
 * (docs/operations.md "Tracing"), posted to an OTLP/HTTP receiver or written as OTLP JSON.
 * Checks where they go before it reads anything.
 */
export async function auditExportOtlp({ values }: CommandInput<typeof AUDIT_EXPORT_OPTIONS>, io: CommandIo): Promise<number> {
  const now = new Date();
  const since = parseTimeBound("--since", values.since, now);
  const until = parseTimeBound("--until", values.until, now);
  const target = targetOf(values.endpoint, values.out, io);
  const read = await withBus(io, { name: values.as, creds: values.creds, fallback: "admin" }, (bus) =>
    readAuditCallEvents(bus, { ...(since === undefined ? {} : { since }), ...(until === undefined ? {} : { until }) }),
  );
  const spans = rebuildCallSpans(read.calls);
  const traces = new Set(spans.map((s) => s.traceId)).size;
  let requests: number;
  let where: string;
  if ("file" in target) {
    const lines = otlpJsonRequests(spans, { serviceVersion: WARDEN_VERSION });
    await writeLines(target.file, lines);
    requests = lines.length;
    where = target.file;
  } else {
    where = tracesUrl(target.endpoint);
    const posted = await postSpanRecords(spans, target.endpoint, { serviceVersion: WARDEN_VERSION });
    if (!posted.ok) {
      const partly = posted.requests === 0 ? "" : ` (${posted.requests} earlier request${posted.requests === 1 ? " was" : "s were"} accepted)`;
      throw new CliError("UNAVAILABLE", `could not export the spans to ${where}: ${posted.reason}${partly}`);
    }
    requests = posted.requests;
  }
  const summary = { ok: true, ...("file" in target ? { file: where } : { url: where }), calls: read.calls.length, spans: spans.length, traces, requests, ancestors: read.ancestors, invalid: read.invalid };
  emit(io, values.json ?? false, summary, () =>
    [
      `exported ${spans.length} span${spans.length === 1 ? "" : "s"} of ${read.calls.length} call${read.calls.length === 1 ? "" : "s"} (${traces} trace${traces === 1 ? "" : "s"}) to ${where}`,
      ...(read.ancestors > 0 ? [`${read.ancestors} of them delegated calls of the range and were requested before it`] : []),
      ...(read.invalid > 0 ? [`${read.invalid} message${read.invalid === 1 ? " is" : "s are"} in the range but not valid events, left out (see warden audit)`] : []),
    ].join("\n"),
  );
  return EXIT_OK;
}

/** --endpoint, --out, or OTEL_EXPORTER_OTLP_ENDPOINT: exactly one place, checked before the bus is asked. */
function targetOf(endpoint: string | undefined, out: string | undefined, io: CommandIo): Target {
  if (endpoint !== undefined && out !== undefined) throw usageError("--otlp takes --endpoint URL or --out FILE, not both");
  if (out !== undefined) return { file: resolve(io.cwd, out) };
  if (endpoint !== undefined) {
    if (!isHttpUrl(endpoint)) throw usageError(`--endpoint ${JSON.stringify(endpoint)} is not an http(s) URL: give an OTLP/HTTP receiver's base URL, e.g. http://collector:4318`);
    return { endpoint };
  }
  let fromEnv: string | undefined;
  try {
    fromEnv = loadTracingConfig(io.env).OTEL_EXPORTER_OTLP_ENDPOINT;
  } catch (err) {
    if (err instanceof ConfigError) throw usageError(err.message);
    throw err;
  }
  if (fromEnv === undefined) throw usageError("--otlp needs --endpoint URL, --out FILE, or OTEL_EXPORTER_OTLP_ENDPOINT set");
  return { endpoint: fromEnv };
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "";
  } catch {
    return false;
  }
}

async function writeLines(out: string, lines: readonly string[]): Promise<void> {
  await writeNamedFile(out, lines.length === 0 ? "" : `${lines.join("\n")}\n`, 0o644);
}
