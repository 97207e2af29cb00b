import type { AuditRow, Finding, ShadowSummary } from "@warden/projections";
import { projectorBehindText, type ProjectorPosition, type UnreadableMessage } from "@warden/projector";
import { renderTable } from "../output.js";

export function auditTable(rows: readonly AuditRow[]): string {
  if (rows.length === 0) return "no calls in range";
  return renderTable(rows, [
    { title: "REQUESTED", value: (r) => r.requestedAt },
    { title: "CALL", value: (r) => r.callId },
    { title: "PRINCIPAL", value: (r) => r.principal },
    { title: "MODE", value: (r) => r.mode },
    { title: "TOOL", value: (r) => r.tool, max: 40 },
    { title: "STATUS", value: (r) => (r.errorCode ? `${r.status} (${r.errorCode})` : r.status) },
    { title: "DECISION", value: (r) => (r.decision ? `${r.decision} ${r.ruleIds.join(",")}` : r.ruleIds.join(",")), max: 48 },
    { title: "APPROVER", value: (r) => r.approver ?? "" },
    { title: "MS", value: (r) => String(Math.round(r.durationMs)) },
    { title: "VIOLATIONS", value: (r) => (r.violations.length === 0 ? "" : r.violations.join(",")) },
    // only when some call said what it was for
    ...(rows.some((r) => r.goal !== undefined) ? [{ title: "GOAL", value: (r: AuditRow) => r.goal ?? "", max: 48 }] : []),
    // only when a shadow rule matched some call: what it would have decided, `!` where that differs
    ...(rows.some((r) => r.shadow !== undefined)
      ? [{ title: "SHADOW", value: (r: AuditRow) => (r.shadow === undefined ? "" : `${r.shadow.disagrees ? "!" : "="}${r.shadow.decision} ${r.shadow.shadowRuleIds.join(",")}`), max: 48 }]
      : []),
  ]);
}

/** What shadow rules would have changed among the calls listed (never a violation). */
export function shadowText(s: ShadowSummary): string {
  const head = `shadow rules matched ${s.matched} call${s.matched === 1 ? "" : "s"}: ${s.disagree === 0 ? "all agree with the decisions recorded" : `${s.disagree} would have been decided otherwise`}`;
  const lines = s.disagreements.map((d) => {
    const ids = d.callIds.slice(0, 3).join(", ");
    return `  ${d.shadowRuleIds.join(", ")}: ${d.decision} → ${d.shadowDecision} on ${d.count} call${d.count === 1 ? "" : "s"} (${ids}${d.count > 3 ? ", …" : ""})`;
  });
  return [head, ...lines].join("\n");
}

/** One line per finding, naming the invariant, the call and the event. */
export function findingLine(f: Finding): string {
  const at = f.type === undefined ? "" : ` at ${f.type}${f.eventId ? ` ${f.eventId}` : ""}${f.seq === undefined ? "" : ` (seq ${f.seq})`}`;
  return `VIOLATION ${f.kind} call ${f.callId}${at}: ${f.detail}`;
}

/** A finding about no call in particular: the read models do not reach the stream's end. */
export interface ProjectorFinding {
  readonly kind: "projector_behind";
  readonly detail: string;
  readonly cursor: number;
  readonly streamSeq: number;
}

export function projectorFinding(p: ProjectorPosition): ProjectorFinding {
  return { kind: "projector_behind", detail: projectorBehindText(p), cursor: p.cursor, streamSeq: p.target };
}

export function verifySummary(calls: number, findings: readonly Finding[], policyVersion: string, behind?: ProjectorFinding): string {
  const head = `verified ${calls} call${calls === 1 ? "" : "s"} against the invariants (policy ${policyVersion}): ${findings.length === 0 ? "no violations" : `${findings.length} violation${findings.length === 1 ? "" : "s"}`}`;
  return [head, ...findings.map(findingLine), ...(behind ? [`FINDING ${behind.kind}: ${behind.detail}`] : [])].join("\n");
}

/** Messages of the range that are not events: they changed nothing, but an auditor should know. */
export function invalidNote(count: number, first: readonly UnreadableMessage[]): string {
  const head = `${count} message${count === 1 ? " in range is not a valid event" : "s in range are not valid events"} (left out of every read model and of this audit):`;
  return [head, ...first.map((m) => `  seq ${m.seq} ${m.subject}: ${m.reason}`), ...(count > first.length ? [`  ... ${count - first.length} more`] : [])].join("\n");
}
