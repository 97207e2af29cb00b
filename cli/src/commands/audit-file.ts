import type { PolicyDocument } from "@warden/contracts/policy";
import { exportExtentFindings, parseExport, parseHeadLog, verifyEvidence, type Checkpoint, type EvidenceFinding } from "@warden/evidence";
import { applyCallEvent, decodeCallMessage, decodeFailureText, type AuditFilter, type CallModel } from "@warden/projections";
import { MAX_INVALID_SAMPLES, type UnreadableMessage } from "@warden/projector";
import { readNamedText } from "../named-file.js";
import { loadPinnedKeys } from "../evidence-reader.js";
import type { CommandIo } from "../io.js";
import { renderAudit, type AuditFormat } from "./audit-render.js";

export interface AuditFileOptions {
  readonly since: Date | undefined;
  readonly until: Date | undefined;
  readonly filter: AuditFilter;
  readonly policy: PolicyDocument | undefined;
  readonly keysFile: string | undefined;
  /** The notary's head log (`--head`), copied from outside the bus. */
  readonly headFile: string | undefined;
  readonly format: AuditFormat;
  readonly wide: boolean;
}

/**
 * `warden audit --verify --file FILE.jsonl --keys KEYS`: an export checked with no bus at all —
 * its evidence against the pinned keys, and its calls against the invariants (and the policy
 * document, with --policy). A line that is not part of an export is a finding, and so is a file
 * that does not end with the notary's trailer over all of it, or (with --head) ends before the
 * notary's head log or holds other checkpoints than it.
 */
export async function auditExportFile(file: string, o: AuditFileOptions, io: CommandIo): Promise<number> {
  const keys = await loadPinnedKeys(io, o.keysFile);
  const text = await readNamedText(file);
  const head = o.headFile === undefined ? undefined : parseHeadLog(await readNamedText(o.headFile));
  const parsed = parseExport(text);
  const report = verifyEvidence({
    messages: parsed.messages,
    checkpoints: parsed.checkpoints,
    notaryKeys: keys.notaryPublicKeys,
    approverKeys: keys.approverPublicKeys,
    complete: parsed.header?.complete ?? false,
    ...(parsed.header === undefined ? {} : { firstSeq: parsed.header.firstSeq }),
  });
  // an export holds sealed messages only: one no checkpoint covers was added after the export
  const unsealed: EvidenceFinding[] = report.unsealed.map((u) => ({ ...u, kind: "event_unsealed", detail: "no checkpoint in the file seals it" }));
  const lines: EvidenceFinding[] = parsed.invalidLines.map((l) => ({ kind: "checkpoint_malformed", detail: `line ${l.line} of ${file} is not part of an export: ${l.reason}` }));
  const headLines: EvidenceFinding[] = (head?.invalidLines ?? []).map((l) => ({ kind: "head_invalid", detail: `line ${l.line} of ${o.headFile} is not a checkpoint line: ${l.reason}` }));
  const headCheckpoints: readonly Checkpoint[] | undefined = head?.checkpoints;
  const extent = exportExtentFindings({ parsed, notaryKeys: keys.notaryPublicKeys, ...(headCheckpoints ? { head: headCheckpoints } : {}) });
  const evidence = { ...report, findings: [...lines, ...headLines, ...extent, ...report.findings, ...unsealed] };

  const models = new Map<string, CallModel>();
  let invalid = 0;
  const invalidSamples: UnreadableMessage[] = [];
  const sinceMs = o.since?.getTime();
  const untilMs = o.until?.getTime();
  const requested = new Set<string>();
  for (const m of parsed.messages) {
    const d = decodeCallMessage(m.subject, m.data);
    if (!d.ok) {
      if (invalid++ < MAX_INVALID_SAMPLES) invalidSamples.push({ seq: m.seq, subject: m.subject, reason: decodeFailureText(d) });
      continue;
    }
    const e = d.event;
    // an export carries no server timestamps: the range is over when calls were requested
    if (e.type === "ToolCallRequested") {
      const at = Date.parse(e.ts);
      if ((sinceMs === undefined || at >= sinceMs) && (untilMs === undefined || at <= untilMs)) requested.add(e.callId);
    }
    if (!requested.has(e.callId)) continue;
    models.set(e.callId, applyCallEvent(models.get(e.callId), e, m.seq));
  }
  return renderAudit(
    {
      calls: [...models.values()],
      invalid,
      invalidSamples,
      doc: o.policy,
      projector: undefined,
      evidence,
      notary: undefined,
      since: o.since,
      until: o.until,
      filter: o.filter,
      format: o.format,
      wide: o.wide,
      verify: true,
      file,
    },
    io,
  );
}
