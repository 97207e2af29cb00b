import { resolve } from "node:path";
import { requestRpc, type Bus } from "@warden/bus";
import { NOTARY_EXPORT_SEAL_SUBJECT, STREAM_CALLS } from "@warden/contracts/subjects";
import { checkpointLine, checkpointRef, exportDigest, exportHeaderLine, ExportTrailerSchema, messageLine, trailerLine, type Checkpoint, type ExportTrailer } from "@warden/evidence";
import type { AUDIT_EXPORT_OPTIONS, AUDIT_KEYS_OPTIONS } from "../command-list.js";
import { withBus } from "../connect.js";
import { parseDuration } from "../domain/options.js";
import { parseTimeBound } from "../domain/time-range.js";
import { CliError, EXIT_OK, usageError } from "../errors.js";
import { writeNamedFile } from "../named-file.js";
import { loadPinnedKeys, NOTARY_WAIT_MS, readStreamEvidence, type StreamEvidence } from "../evidence-reader.js";
import type { Command } from "../io.js";
import { emit } from "../output.js";

/**
 * `warden audit export --out FILE.jsonl [--since T] [--until T]` (with `--otlp`, the calls' spans:
 * see audit-export-otlp.ts): the notary's checkpoints and
 * every message they seal, for an auditor to verify with no bus (`audit --verify --file`). A time
 * range is widened to whole checkpoints, since a checkpoint can only be checked whole; messages
 * the notary has not sealed yet (after a wait) are left out and counted. The file ends with the
 * notary's signed trailer over every line before it and the chain's head when it signed: an
 * export cut short or with an edited header is found offline (docs/audit.md, Key custody).
 */
export const auditExportCommand: Command<typeof AUDIT_EXPORT_OPTIONS> = async (input, io) => {
  const { values } = input;
  if (values.otlp === true) return (await import("./audit-export-otlp.js")).auditExportOtlp(input, io);
  if (values.endpoint !== undefined) throw usageError("--endpoint is where --otlp posts spans: add --otlp, or give --out FILE for the evidence");
  if (values.out === undefined) throw usageError("audit export needs --out FILE (or --otlp, to export spans)");
  const now = new Date();
  const since = parseTimeBound("--since", values.since, now);
  const until = parseTimeBound("--until", values.until, now);
  const notaryWaitMs = parseDuration("--notary-wait", values["notary-wait"], NOTARY_WAIT_MS);
  const out = resolve(io.cwd, values.out);
  const built = await withBus(io, { name: values.as, creds: values.creds, fallback: "admin" }, async (bus) => {
    // the notary may seal a checkpoint while we read: read again until the file ends at the head it names
    for (let attempt = 1; ; attempt++) {
      const ev = await readStreamEvidence(bus, { notaryWaitMs });
      const file = exportBody(ev, { since, until, now });
      const trailer = await sealExport(bus, file, { since, until });
      const behind = until === undefined && trailer.statement.head !== null && trailer.statement.head.index > (file.last?.statement.index ?? -1);
      if (!behind || attempt >= SEAL_ATTEMPTS) return { ev, file, trailer, behind };
    }
  });
  const { ev, file: body, trailer, behind } = built;
  const { chosen, messages, complete } = body;
  const first = body.first?.statement;
  const last = body.last?.statement;
  const sealedEnd = ev.checkpoints.at(-1)?.statement.toSeq ?? 0;
  const unsealed = ev.messages.filter((m) => m.seq > sealedEnd).length;

  await writeNamedFile(out, `${body.text}${trailerLine(trailer)}\n`, 0o644);
  const summary = { ok: true, file: out, checkpoints: chosen.length, messages: messages.length, fromSeq: first?.fromSeq ?? null, toSeq: last?.toSeq ?? null, complete, unsealedLeftOut: unsealed };
  emit(io, values.json ?? false, summary, () =>
    [
      `exported ${messages.length} messages and ${chosen.length} checkpoints${first && last ? ` (seq ${first.fromSeq}–${last.toSeq})` : ""} to ${out}`,
      ...(behind ? [`the notary sealed more while this export was read: the file ends before its head (verification reports export_truncated); export again`] : []),
      ...(unsealed > 0 ? [`${unsealed} newer message${unsealed === 1 ? " is" : "s are"} not sealed yet and left out (is the notary running?)`] : []),
      "verify it anywhere with: warden audit --verify --file FILE --keys KEYS [--head HEADS] (keys from `warden audit keys --out KEYS`, the head log copied from the notary's folder)",
    ].join("\n"),
  );
  return EXIT_OK;
};

const SEAL_ATTEMPTS = 3;
const SEAL_TIMEOUT_MS = 5_000;

interface ExportBody {
  readonly text: string;
  readonly lines: number;
  readonly chosen: Checkpoint[];
  readonly messages: StreamEvidence["messages"];
  readonly first: Checkpoint | undefined;
  readonly last: Checkpoint | undefined;
  readonly complete: boolean;
}

/** Everything before the trailer: the header, the chosen checkpoints and the messages they seal. */
function exportBody(ev: StreamEvidence, o: { since: Date | undefined; until: Date | undefined; now: Date }): ExportBody {
  const inRange = (seq: number) => {
    const at = ev.storedAtMs.get(seq);
    return at !== undefined && (o.since === undefined || at >= o.since.getTime()) && (o.until === undefined || at <= o.until.getTime());
  };
  const ranged = o.since !== undefined || o.until !== undefined;
  const chosen: Checkpoint[] = ev.checkpoints.filter((c) => !ranged || ev.messages.some((m) => m.seq >= c.statement.fromSeq && m.seq <= c.statement.toSeq && inRange(m.seq)));
  const first = chosen[0];
  const last = chosen.at(-1);
  const messages = first === undefined || last === undefined ? [] : ev.messages.filter((m) => m.seq >= first.statement.fromSeq && m.seq <= last.statement.toSeq);
  const complete = !ranged && first?.statement.index === 0;
  const lines = [
    exportHeaderLine({ kind: "warden-audit-export", v: 1, stream: STREAM_CALLS, exportedAt: o.now.toISOString(), complete, firstSeq: ev.firstSeq, checkpoints: chosen.length, messages: messages.length }),
    ...chosen.map(checkpointLine),
    ...messages.map(messageLine),
  ];
  return { text: `${lines.join("\n")}\n`, lines: lines.length, chosen, messages, first, last, complete };
}

/** The notary's trailer for the file: its digest, the checkpoints it holds, and the chain's head. */
async function sealExport(bus: Bus, b: ExportBody, o: { since: Date | undefined; until: Date | undefined }): Promise<ExportTrailer> {
  const reply = await requestRpc(
    bus,
    NOTARY_EXPORT_SEAL_SUBJECT,
    {
      v: 1,
      digest: exportDigest(b.text),
      lines: b.lines,
      first: b.first ? checkpointRef(b.first) : null,
      last: b.last ? checkpointRef(b.last) : null,
      ...(o.since ? { since: o.since.toISOString() } : {}),
      ...(o.until ? { until: o.until.toISOString() } : {}),
    },
    SEAL_TIMEOUT_MS,
  );
  if (!reply.ok) throw new CliError(reply.error.code, `the notary did not seal the export, so nothing was written: ${reply.error.message}`);
  const parsed = ExportTrailerSchema.safeParse(reply.value);
  if (!parsed.success) throw new CliError("INTERNAL", `the notary's answer is not a trailer: ${parsed.error.issues[0]?.message ?? "invalid"}`);
  return parsed.data;
}

/** `warden audit keys [--out FILE]`: the public keys pinned in WARDEN_HOME, the file an auditor verifies with. */
export const auditKeysCommand: Command<typeof AUDIT_KEYS_OPTIONS> = async ({ values }, io) => {
  const keys = await loadPinnedKeys(io, undefined);
  if (keys.notaryPublicKeys.length === 0) throw usageError("no notary key is pinned in this WARDEN_HOME: `warden up` or `warden provision` makes one");
  const text = `${JSON.stringify(keys, null, 2)}\n`;
  if (values.out === undefined) {
    io.out(text.trimEnd());
    return EXIT_OK;
  }
  const out = resolve(io.cwd, values.out);
  await writeNamedFile(out, text, 0o644);
  emit(io, values.json ?? false, { ok: true, file: out, ...keys }, () => `wrote ${keys.notaryPublicKeys.length} notary and ${keys.approverPublicKeys.length} approver public keys to ${out}`);
  return EXIT_OK;
};
