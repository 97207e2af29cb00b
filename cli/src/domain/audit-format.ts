import type { AuditRow, Finding, ShadowSummary } from "@warden/projections";
import { projectorBehindText, type ProjectorPosition, type UnreadableMessage } from "@warden/projector";
import { cut, renderTable, TEXT_WIDTH } from "../output.js";
import { csvRecord } from "./csv.js";
import { shortId, shortTime, wrapTokens } from "./short-forms.js";

/**
 * The audit as a table. By default it fits 100 columns: the request time as `MM-DD HH:MM:SS`
 * (UTC), call ids by their last characters, long values cut; under each call a line with its
 * decision, rules and approver (and violations, shadow decision, goal); `wide` prints every value
 * whole, one line per call.
 */
export function auditTable(rows: readonly AuditRow[], opts: { readonly wide?: boolean; readonly width?: number } = {}): string {
  if (rows.length === 0) return "no calls in range";
  const wide = opts.wide ?? false;
  const status = (r: AuditRow) => (r.errorCode ? `${r.status} (${r.errorCode})` : r.status);
  const decision = (r: AuditRow) => (r.decision ? `${r.decision} ${r.ruleIds.join(",")}` : r.ruleIds.join(","));
  const violations = (r: AuditRow) => (r.violations.length === 0 ? "" : r.violations.join(","));
  const shadow = (r: AuditRow) => (r.shadow === undefined ? "" : `${r.shadow.disagrees ? "!" : "="}${r.shadow.decision} ${r.shadow.shadowRuleIds.join(",")}`);
  if (wide) {
    return renderTable(rows, [
      { title: "REQUESTED", value: (r) => r.requestedAt },
      { title: "CALL", value: (r) => r.callId },
      { title: "PRINCIPAL", value: (r) => r.principal },
      { title: "MODE", value: (r) => r.mode },
      { title: "TOOL", value: (r) => r.tool },
      { title: "STATUS", value: status },
      { title: "DECISION", value: decision },
      { title: "APPROVER", value: (r) => r.approver ?? "" },
      { title: "MS", value: (r) => String(Math.round(r.durationMs)) },
      { title: "ARGS HASH", value: (r) => r.argsHash ?? "" },
      { title: "VIOLATIONS", value: violations },
      // only when some call said what it was for
      ...(rows.some((r) => r.goal !== undefined) ? [{ title: "GOAL", value: (r: AuditRow) => r.goal ?? "" }] : []),
      // only when a shadow rule matched some call: what it would have decided, `!` where that differs
      ...(rows.some((r) => r.shadow !== undefined) ? [{ title: "SHADOW", value: shadow }] : []),
    ]);
  }
  const width = opts.width ?? TEXT_WIDTH;
  const table = renderTable(
    rows,
    [
      { title: "REQUESTED", value: (r) => shortTime(r.requestedAt) },
      { title: "CALL", value: (r) => shortId(r.callId) },
      { title: "PRINCIPAL", value: (r) => r.principal, min: 10 },
      { title: "MODE", value: (r) => r.mode },
      { title: "TOOL", value: (r) => r.tool, min: 14 },
      { title: "STATUS", value: narrowStatus, min: 14 },
      { title: "MS", value: (r) => String(Math.round(r.durationMs)) },
    ],
    { width },
  );
  // what the minimums could not fit is cut: the line stays within the width
  const [header, ...lines] = table.split("\n").map((l) => cut(l, width));
  // the decision, its rules and approver, and any violations, shadow decision and goal, under the call
  const under = " ".repeat(UNDER);
  const out = [header!, ...rows.flatMap((r, i) => [lines[i]!, ...(details(r).length === 0 ? [] : wrapTokens(under, details(r), width, under))])];
  if (rows.some((r) => shortId(r.callId) !== r.callId)) out.push("(CALL: the ids' last 8 characters; --wide, --json or --format csv print them whole)");
  return out.join("\n");
}

/** A call's second line starts under its CALL column. */
const UNDER = 16;

function details(r: AuditRow): string[] {
  return [
    ...(r.violations.length === 0 ? [] : [`VIOLATIONS=${r.violations.join(",")}`]),
    ...(r.decision === undefined ? [] : [`decision=${r.decision}`]),
    ...(r.ruleIds.length === 0 ? [] : [`rules=${r.ruleIds.join(",")}`]),
    ...(r.approver === undefined ? [] : [`approver=${r.approver}`]),
    ...(r.parentCallId === undefined ? [] : [`parent=${shortId(r.parentCallId)}`]),
    ...(r.shadow === undefined ? [] : [`shadow=${r.shadow.disagrees ? "!" : "="}${r.shadow.decision}`, `shadowRules=${r.shadow.shadowRuleIds.join(",")}`]),
    ...(r.lateResult === undefined ? [] : [`lateResult=${r.lateResult}`]),
    ...(r.goal === undefined ? [] : [`goal=${JSON.stringify(r.goal)}`]),
  ];
}

/** A status with the error code when the code says more (`failed HANDLER_ERROR`; not `outcome_unknown OUTCOME_UNKNOWN`). */
function narrowStatus(r: AuditRow): string {
  return r.errorCode === undefined || r.errorCode.toLowerCase() === r.status ? r.status : `${r.status} ${r.errorCode}`;
}

/** The CSV columns of an audit, one row per call; `--verify` adds the kinds of each call's findings. */
export const AUDIT_CSV_COLUMNS = [
  "requestedAt",
  "callId",
  "domain",
  "tool",
  "principal",
  "mode",
  "correlationId",
  "parentCallId",
  "status",
  "errorCode",
  "decision",
  "ruleIds",
  "policyVersion",
  "approver",
  "argsHash",
  "goal",
  "durationMs",
  "artifacts",
  "violations",
  "lateResult",
  "shadowDecision",
  "shadowRuleIds",
  "shadowDisagrees",
] as const;

/** An audit as CSV (RFC 4180: a header row, quoted fields, CRLF line ends); lists are space-separated. */
export function auditCsv(rows: readonly AuditRow[], findings?: readonly Finding[]): string[] {
  const kinds = new Map<string, string[]>();
  for (const f of findings ?? []) kinds.set(f.callId, [...(kinds.get(f.callId) ?? []), f.kind]);
  const header = [...AUDIT_CSV_COLUMNS, ...(findings === undefined ? [] : ["findings"])];
  const record = (r: AuditRow): (string | number)[] => [
    r.requestedAt,
    r.callId,
    r.domain,
    r.tool,
    r.principal,
    r.mode,
    r.correlationId,
    r.parentCallId ?? "",
    r.status,
    r.errorCode ?? "",
    r.decision ?? "",
    r.ruleIds.join(" "),
    r.policyVersion ?? "",
    r.approver ?? "",
    r.argsHash ?? "",
    r.goal ?? "",
    Math.round(r.durationMs),
    r.artifacts.join(" "),
    r.violations.join(" "),
    r.lateResult ?? "",
    r.shadow?.decision ?? "",
    r.shadow?.shadowRuleIds.join(" ") ?? "",
    r.shadow === undefined ? "" : String(r.shadow.disagrees),
    ...(findings === undefined ? [] : [(kinds.get(r.callId) ?? []).join(" ")]),
  ];
  return [csvRecord(header), ...rows.map((r) => csvRecord(record(r)))];
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
