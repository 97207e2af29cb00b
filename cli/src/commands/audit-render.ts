import type { EvidenceReport } from "@warden/evidence";
import type { PolicyDocument } from "@warden/contracts/policy";
import { auditRow, matchesAudit, shadowSummary, verifyCalls, type AuditFilter, type CallModel, type Finding } from "@warden/projections";
import type { ProjectorPosition, UnreadableMessage } from "@warden/projector";
import { auditCsv, auditTable, invalidNote, projectorFinding, shadowText, verifySummary, type ProjectorFinding } from "../domain/audit-format.js";
import { evidenceSummary, type NotaryFinding } from "../domain/evidence-format.js";
import { fitLines } from "../domain/short-forms.js";
import { EXIT_FAILED, EXIT_OK } from "../errors.js";
import { TEXT_WIDTH } from "../output.js";
import type { CommandIo } from "../io.js";

/** How `warden audit` prints: a table for people, one JSON document, one JSON line or one CSV record per call. */
export const AUDIT_FORMATS = ["table", "json", "jsonl", "csv"] as const;
export type AuditFormat = (typeof AUDIT_FORMATS)[number];

export interface AuditOutcome {
  readonly calls: readonly CallModel[];
  readonly invalid: number;
  readonly invalidSamples: readonly UnreadableMessage[];
  readonly doc: PolicyDocument | undefined;
  readonly projector: ProjectorPosition | undefined;
  readonly evidence: EvidenceReport | undefined;
  readonly notary: NotaryFinding | undefined;
  readonly since: Date | undefined;
  readonly until: Date | undefined;
  readonly filter: AuditFilter;
  readonly format: AuditFormat;
  /** Table only: every value whole (full times, call ids, args hashes), however wide. */
  readonly wide: boolean;
  readonly verify: boolean;
  /** Where the calls came from when not the live stream. */
  readonly file?: string;
}

/** Prints an audit (table, JSON, JSONL or CSV) and its verification; the exit code says whether anything was found. */
export function renderAudit(o: AuditOutcome, io: Pick<CommandIo, "out" | "err">): number {
  const { doc, projector, notary, since, until, filter } = o;
  const read = { invalid: o.invalid, invalidSamples: o.invalidSamples };
  const all = [...o.calls].sort((a, b) => (a.requestedAt ?? a.firstTs).localeCompare(b.requestedAt ?? b.firstTs) || a.callId.localeCompare(b.callId));
  const listed = all.filter((m) => matchesAudit(m, filter));
  const rows = listed.map(auditRow);
  // shadow rules' disagreements are reported, never a failure: showing them is what shadow mode is for
  const shadow = shadowSummary(rows);
  // budgets span every call of a run, so the check sees all of them; findings are kept for the listed ones
  const shown = new Set(listed.map((m) => m.callId));
  const findings: Finding[] | undefined = o.verify ? (doc ? verifyCalls(all, doc) : callViolations(all)).filter((f) => shown.has(f.callId)) : undefined;
  const behind: ProjectorFinding | undefined = projector === undefined || projector.caughtUp ? undefined : projectorFinding(projector);
  const range = { since: since?.toISOString() ?? null, until: until?.toISOString() ?? null };
  const invalidEvents = read.invalid === 0 ? {} : { invalidEvents: { count: read.invalid, first: read.invalidSamples } };

  // like the invariants, a call's evidence is reported for the calls listed; what names no call
  // (a removed message, a checkpoint) concerns the whole history and is always reported
  const evidence = o.evidence;
  const narrowed = since !== undefined || until !== undefined || Object.keys(filter).length > 0;
  const listedEvidence = evidence === undefined || !narrowed ? evidence : { ...evidence, findings: evidence.findings.filter((f) => f.callId === undefined || shown.has(f.callId)) };
  const evidenceFailed = listedEvidence !== undefined && listedEvidence.findings.length > 0;
  const failed = (findings !== undefined && findings.length > 0) || behind !== undefined || evidenceFailed || notary !== undefined;
  const source = o.file === undefined ? {} : { file: o.file };

  if (o.format === "jsonl" || o.format === "csv") {
    if (o.format === "csv") {
      // RFC 4180 line ends: io.out ends each record with the \n
      for (const record of auditCsv(rows, findings)) io.out(`${record}\r`);
    } else {
      const byCall = new Map<string, Finding[]>();
      for (const f of findings ?? []) byCall.set(f.callId, [...(byCall.get(f.callId) ?? []), f]);
      for (const r of rows) io.out(JSON.stringify(findings ? { ...r, findings: byCall.get(r.callId) ?? [] } : r));
    }
    // one line per call on stdout; what concerns no call (or the evidence) goes to stderr
    if (behind) io.err(`FINDING ${behind.kind}: ${behind.detail}`);
    if (listedEvidence && (listedEvidence.findings.length > 0 || notary)) io.err(evidenceSummary(listedEvidence, notary));
    if (o.format === "csv" && findings !== undefined && findings.length > 0) io.err(verifySummary(rows.length, findings, doc?.version ?? "none given: call invariants only"));
  } else if (o.format === "json") {
    const verified = findings
      ? {
          verified: !failed,
          policyVersion: doc?.version ?? null,
          findings: [...findings, ...(behind ? [behind] : [])],
          projector,
          ...(listedEvidence ? { evidence: { ...listedEvidence, ...(notary ? { notary } : {}) } } : {}),
        }
      : {};
    io.out(JSON.stringify({ ...source, ...range, filter, calls: rows, ...(shadow.matched > 0 ? { shadow } : {}), ...verified, ...invalidEvents }, null, 2));
  } else {
    // the notes under the table keep to 100 columns too (wrapped, nothing cut), unless --wide
    const fit = (text: string) => (o.wide ? text : fitLines(text, TEXT_WIDTH));
    io.out(auditTable(rows, { wide: o.wide }));
    if (shadow.matched > 0) io.out(`\n${fit(shadowText(shadow))}`);
    if (read.invalid > 0) io.out(`\n${fit(invalidNote(read.invalid, read.invalidSamples))}`);
    if (findings) io.out(`\n${fit(verifySummary(rows.length, findings, doc?.version ?? "none given: call invariants only", behind))}`);
    if (listedEvidence) io.out(`\n${fit(evidenceSummary(listedEvidence, notary))}`);
  }
  return failed ? EXIT_FAILED : EXIT_OK;
}

/** Without a policy document, the violations each call's own history shows. */
function callViolations(models: readonly CallModel[]): Finding[] {
  return models.flatMap((m) => m.violations.map((v) => ({ kind: v.kind, callId: m.callId, detail: v.detail, seq: v.seq, eventId: v.eventId, type: v.type })));
}

