import { CALL_MODES, type CallMode } from "@warden/contracts/descriptor";
import { type Decision, type PolicyDocument } from "@warden/contracts/policy";
import type { CallModel } from "./call-model.js";
import { callHeading, type CallHeading } from "./call-heading.js";
import type { CallState } from "./call-state.js";
import type { AuditViolationKind, CallViolationKind } from "./violations.js";

/** One call as an audit lists it. */
export interface AuditRow extends CallHeading {
  readonly callId: string;
  readonly requestedAt: string;
  readonly decision?: string;
  readonly ruleIds: readonly string[];
  readonly policyVersion?: string;
  readonly approver?: string;
  readonly argsHash?: string;
  /** The request's intent goal (the caller's claim of what the call is for). */
  readonly goal?: string;
  /** From the request to the last event. */
  readonly durationMs: number;
  readonly errorCode?: string;
  readonly artifacts: readonly string[];
  readonly violations: readonly CallViolationKind[];
  /** Set when a run's result arrived after the call's outcome (kept, never a second outcome). */
  readonly lateResult?: "ok" | "error";
  /** Set when shadow rules matched the call: what they would have decided, and whether that differs. */
  readonly shadow?: { readonly decision: Decision; readonly shadowRuleIds: readonly string[]; readonly disagrees: boolean };
}

export function auditRow(m: CallModel): AuditRow {
  const errorCode = m.rejection?.code ?? m.result?.error?.code ?? (m.outcomeUnknown ? "OUTCOME_UNKNOWN" : undefined);
  return {
    callId: m.callId,
    requestedAt: m.requestedAt ?? m.firstTs,
    ...callHeading(m),
    ...(m.decision === undefined ? {} : { decision: m.decision.decision, policyVersion: m.decision.policyVersion }),
    ruleIds: m.rejection?.ruleIds ?? m.decision?.ruleIds ?? [],
    ...(m.approval?.approver === undefined ? {} : { approver: m.approval.approver }),
    ...(m.argsHash === undefined ? {} : { argsHash: m.argsHash }),
    ...(m.intent === undefined ? {} : { goal: m.intent.goal }),
    durationMs: Date.parse(m.lastTs) - Date.parse(m.requestedAt ?? m.firstTs),
    ...(errorCode === undefined ? {} : { errorCode }),
    artifacts: m.result?.artifacts.map((a) => a.id) ?? [],
    violations: m.violations.map((v) => v.kind),
    ...(m.lateResult === undefined ? {} : { lateResult: m.lateResult.ok ? "ok" : "error" }),
    ...(m.decision?.shadow === undefined
      ? {}
      : { shadow: { decision: m.decision.shadow.decision, shadowRuleIds: [...m.decision.shadow.shadowRuleIds], disagrees: m.decision.shadow.decision !== m.decision.decision } }),
  };
}

/** Calls whose decision the same shadow rules would have made otherwise, the same way. */
export interface ShadowDisagreement {
  readonly shadowRuleIds: readonly string[];
  /** The decision recorded, and the one the shadow rules would have made. */
  readonly decision: Decision;
  readonly shadowDecision: Decision;
  readonly count: number;
  readonly callIds: readonly string[];
}

/** What shadow rules did over the calls listed: how many they matched, and where they would have decided otherwise. */
export interface ShadowSummary {
  readonly matched: number;
  readonly disagree: number;
  /** Grouped by the shadow rules and the two decisions, the largest group first. */
  readonly disagreements: readonly ShadowDisagreement[];
}

/**
 * Shadow rules over a list of calls (docs/policy.md, Shadow rules): a disagreement is a call whose
 * recorded decision differs from the one its shadow rules would have made. It is what shadow mode
 * is for, not a violation: `audit --verify` does not fail on it.
 */
export function shadowSummary(rows: readonly AuditRow[]): ShadowSummary {
  const groups = new Map<string, { shadowRuleIds: string[]; decision: Decision; shadowDecision: Decision; callIds: string[] }>();
  let matched = 0;
  for (const r of rows) {
    if (r.shadow === undefined || r.decision === undefined) continue;
    matched++;
    if (!r.shadow.disagrees) continue;
    const decision = r.decision as Decision;
    const key = JSON.stringify([r.shadow.shadowRuleIds, decision, r.shadow.decision]);
    const g = groups.get(key) ?? { shadowRuleIds: [...r.shadow.shadowRuleIds], decision, shadowDecision: r.shadow.decision, callIds: [] };
    g.callIds.push(r.callId);
    groups.set(key, g);
  }
  const disagreements = [...groups.values()].map((g) => ({ ...g, count: g.callIds.length })).sort((a, b) => b.count - a.count);
  return { matched, disagree: disagreements.reduce((n, g) => n + g.count, 0), disagreements };
}

export interface AuditFilter {
  readonly principal?: string;
  readonly tool?: string;
  readonly domain?: string;
  readonly mode?: CallMode;
  /** A call state, e.g. succeeded, denied, outcome_unknown. */
  readonly outcome?: CallState;
}

export function matchesAudit(m: CallModel, f: AuditFilter): boolean {
  return (
    (f.principal === undefined || m.principal === f.principal) &&
    (f.tool === undefined || m.tool === f.tool || m.requestedTool === f.tool) &&
    (f.domain === undefined || m.domain === f.domain) &&
    (f.mode === undefined || m.mode === f.mode) &&
    (f.outcome === undefined || m.status === f.outcome)
  );
}

export const AUDIT_MODES = CALL_MODES;

/** A violation found by an audit: the call's own, or one only the policy document or other calls reveal. */
export interface Finding {
  readonly kind: CallViolationKind | AuditViolationKind;
  readonly callId: string;
  readonly detail: string;
  readonly seq?: number;
  readonly eventId?: string;
  readonly type?: string;
}

/**
 * Checks calls against the invariants (DESIGN.md §6): every violation their models recorded,
 * grants against the policy document's principals (the reducer cannot know who is a person),
 * and run budgets across the calls given.
 */
export function verifyCalls(models: readonly CallModel[], doc: PolicyDocument): Finding[] {
  const findings: Finding[] = [];
  for (const m of models) {
    for (const v of m.violations) findings.push({ kind: v.kind, callId: m.callId, detail: v.detail, seq: v.seq, eventId: v.eventId, type: v.type });
    const grant = grantFinding(m, doc);
    if (grant !== undefined) findings.push(grant);
  }
  findings.push(...budgetFindings(models, doc));
  return findings;
}

function grantFinding(m: CallModel, doc: PolicyDocument): Finding | undefined {
  const a = m.approval;
  if (a?.outcome !== "granted" || a.approver === undefined) return undefined;
  const at = { callId: m.callId, type: "ApprovalGranted", ...(a.grantEventId === undefined ? {} : { eventId: a.grantEventId }) };
  const approver = a.approver;
  if (approver === m.principal) {
    // the requester's own button: only a person the document names, in human mode, where the request said so
    const requester = Object.hasOwn(doc.principals, approver) ? doc.principals[approver] : undefined;
    if (a.requesterMayConfirm && m.mode === "human" && requester?.kind === "human") return undefined;
    const who = requester?.kind === "human" ? "" : ` (not a person the policy ${doc.version} names)`;
    return { ...at, kind: "grant_by_requester", detail: `${approver} approved their own ${m.mode}-mode call${who}` };
  }
  const p = Object.hasOwn(doc.principals, approver) ? doc.principals[approver] : undefined;
  if (p?.kind !== "human") {
    return { ...at, kind: "grant_approver_not_human", detail: `${approver} is ${p === undefined ? "not in the policy document" : `a ${p.kind}`} (policy ${doc.version})` };
  }
  if (m.grade !== undefined && !p.approves.includes(m.grade)) {
    return { ...at, kind: "grant_approver_not_allowed", detail: `${approver} is a person who may not approve ${m.grade} calls (policy ${doc.version})` };
  }
  return undefined;
}

function budgetFindings(models: readonly CallModel[], doc: PolicyDocument): Finding[] {
  const max = doc.budgets.maxCallsPerRun;
  if (max === undefined) return [];
  const admittedByRun = new Map<string, CallModel[]>();
  for (const m of models) {
    if (m.decision === undefined || m.decision.decision === "deny") continue;
    const list = admittedByRun.get(m.correlationId) ?? [];
    list.push(m);
    admittedByRun.set(m.correlationId, list);
  }
  const out: Finding[] = [];
  for (const [run, calls] of admittedByRun) {
    if (calls.length <= max) continue;
    const ordered = [...calls].sort((a, b) => decisionSeq(a) - decisionSeq(b));
    ordered.slice(max).forEach((m, i) =>
      out.push({
        kind: "budget_exceeded",
        callId: m.callId,
        type: "ToolPolicyChecked",
        eventId: m.decision!.eventId,
        detail: `call ${max + i + 1} admitted in run ${run}; budgets.maxCallsPerRun is ${max} (policy ${doc.version})`,
      }),
    );
  }
  return out;
}

function decisionSeq(m: CallModel): number {
  return m.events.find((e) => e.type === "ToolPolicyChecked")?.seq ?? m.seq;
}
