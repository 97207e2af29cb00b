import { open } from "node:fs/promises";
import { resolve } from "node:path";
import { STREAM_CALLS } from "@warden/contracts";
import { checkpointLine, exportHeaderLine, messageLine, type Checkpoint } from "@warden/evidence";
import type { AUDIT_EXPORT_OPTIONS, AUDIT_KEYS_OPTIONS } from "../command-list.js";
import { withBus } from "../connect.js";
import { parseDuration } from "../domain/options.js";
import { parseTimeBound } from "../domain/time-range.js";
import { CliError, EXIT_OK, usageError } from "../errors.js";
import { loadPinnedKeys, NOTARY_WAIT_MS, readStreamEvidence } from "../evidence-reader.js";
import type { Command } from "../io.js";
import { emit } from "../output.js";

/**
 * `warden audit export --out FILE.jsonl [--since T] [--until T]` (with `--otlp`, the calls' spans:
 * see audit-export-otlp.ts): the notary's checkpoints and
 * every message they seal, for an auditor to verify with no bus (`audit --verify --file`). A time
 * range is widened to whole checkpoints, since a checkpoint can only be checked whole; messages
 * the notary has not sealed yet (after a wait) are left out and counted.
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
  const ev = await withBus(io, { name: values.as, creds: values.creds, fallback: "admin" }, (bus) => readStreamEvidence(bus, { notaryWaitMs }));

  const inRange = (seq: number) => {
    const at = ev.storedAtMs.get(seq);
    return at !== undefined && (since === undefined || at >= since.getTime()) && (until === undefined || at <= until.getTime());
  };
  const ranged = since !== undefined || until !== undefined;
  const chosen: Checkpoint[] = ev.checkpoints.filter((c) => !ranged || ev.messages.some((m) => m.seq >= c.statement.fromSeq && m.seq <= c.statement.toSeq && inRange(m.seq)));
  const first = chosen[0]?.statement;
  const last = chosen.at(-1)?.statement;
  const messages = first === undefined || last === undefined ? [] : ev.messages.filter((m) => m.seq >= first.fromSeq && m.seq <= last.toSeq);
  const sealedEnd = ev.checkpoints.at(-1)?.statement.toSeq ?? 0;
  const unsealed = ev.messages.filter((m) => m.seq > sealedEnd).length;
  const complete = !ranged && first?.index === 0;

  const file = await open(out, "w", 0o644).catch((err: unknown) => {
    throw new CliError("INVALID_REQUEST", `cannot write ${out}: ${(err as Error).message}`);
  });
  try {
    const lines = [
      exportHeaderLine({ kind: "warden-audit-export", v: 1, stream: STREAM_CALLS, exportedAt: now.toISOString(), complete, firstSeq: ev.firstSeq, checkpoints: chosen.length, messages: messages.length }),
      ...chosen.map(checkpointLine),
      ...messages.map(messageLine),
    ];
    await file.writeFile(`${lines.join("\n")}\n`);
  } finally {
    await file.close();
  }
  const summary = { ok: true, file: out, checkpoints: chosen.length, messages: messages.length, fromSeq: first?.fromSeq ?? null, toSeq: last?.toSeq ?? null, complete, unsealedLeftOut: unsealed };
  emit(io, values.json ?? false, summary, () =>
    [
      `exported ${messages.length} messages and ${chosen.length} checkpoints${first && last ? ` (seq ${first.fromSeq}–${last.toSeq})` : ""} to ${out}`,
      ...(unsealed > 0 ? [`${unsealed} newer message${unsealed === 1 ? " is" : "s are"} not sealed yet and left out (is the notary running?)`] : []),
      "verify it anywhere with: warden audit --verify --file FILE --keys KEYS (keys from `warden audit keys --out KEYS`)",
    ].join("\n"),
  );
  return EXIT_OK;
};

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
  const file = await open(out, "w", 0o644).catch((err: unknown) => {
    throw new CliError("INVALID_REQUEST", `cannot write ${out}: ${(err as Error).message}`);
  });
  try {
    await file.writeFile(text);
  } finally {
    await file.close();
  }
  emit(io, values.json ?? false, { ok: true, file: out, ...keys }, () => `wrote ${keys.notaryPublicKeys.length} notary and ${keys.approverPublicKeys.length} approver public keys to ${out}`);
  return EXIT_OK;
};
