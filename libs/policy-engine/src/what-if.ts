import type { CallMode, ToolRecord } from "@warden/contracts/descriptor";
import type { Decision, HistoryFinding, PolicyDocument, RunLabelSource } from "@warden/contracts/policy";
import type { JsonValue } from "@warden/contracts/json";
import { evaluateCall } from "./evaluate-call.js";
import { ruleMatches } from "./evaluate.js";
import { historyRules, type HistoryCall } from "./history.js";
import { documentRuleIds, HISTORY_GATES, historyGateOf, type HistoryGate } from "./history-gates.js";
import { HistoryReplay, withActionTypes, type HistoryRecord } from "./history-replay.js";

/** One policy decision as the stream records it (its ToolArgsValidated and ToolPolicyChecked). */
export interface RecordedDecision {
  readonly callId: string;
  /** When the call was requested (the stream's time of its ToolCallRequested). */
  readonly requestedAt: string;
  readonly tool: string;
  readonly version: string;
  readonly descriptorHash: string;
  readonly principal: string;
  readonly mode: CallMode;
  readonly flags: Readonly<Record<string, boolean>>;
  readonly scope: string | null;
  readonly parentCallId?: string;
  readonly decision: Decision;
  readonly ruleIds: readonly string[];
  readonly reason: string;
  readonly policyVersion: string;
  /** The history conditions the decision evaluated (ToolPolicyChecked `history`). */
  readonly history?: readonly HistoryFinding[];
  /** The run's labels the decision read (ToolPolicyChecked `runLabels`): replayed as they were. Absent: not read. */
  readonly runLabels?: readonly RunLabelSource[];
  /** The run (correlationId) and the args decided on: what history conditions key and correlate on. */
  readonly runId?: string;
  readonly args?: JsonValue;
}

/** Why a recorded decision was not replayed: a gate that depends on history, or a descriptor that is gone. */
export type NotReplayedReason = HistoryGate | "descriptor_unknown";

export interface DecisionSide {
  readonly decision: Decision;
  readonly ruleIds: readonly string[];
}

export interface WhatIfExample {
  readonly callId: string;
  readonly requestedAt: string;
  readonly tool: string;
  readonly principal: string;
  readonly mode: CallMode;
  /** The document the recorded decision was made under. */
  readonly policyVersion: string;
  readonly reasonBefore: string;
  readonly reasonAfter: string;
}

/** Calls whose decision would change the same way, by the same rules. */
export interface WhatIfChange {
  readonly from: DecisionSide;
  readonly to: DecisionSide;
  readonly count: number;
  /** The first few calls of the group, in the order they were requested. */
  readonly examples: readonly WhatIfExample[];
  /** Every call of the group. */
  readonly callIds: readonly string[];
}

export interface WhatIfReport {
  readonly candidateVersion: string;
  /** Recorded decisions looked at. */
  readonly considered: number;
  /** Decisions replayed through the candidate, and how many of them would change. */
  readonly replayed: number;
  readonly changed: number;
  readonly unchanged: number;
  /** Of the unchanged: the same decision, made by other rules. */
  readonly sameDecisionOtherRules: number;
  /** Grouped by the decision and rules before and after, the largest group first. */
  readonly changes: readonly WhatIfChange[];
  /** Decisions not replayed, by why. */
  readonly notReplayed: Readonly<Partial<Record<NotReplayedReason, number>>>;
  /** The documents the replayed decisions were made under. */
  readonly recordedUnder: readonly string[];
  /** What the candidate configures that depends on history and is not replayed (rate limits, budgets). */
  readonly candidateHistoryGates: readonly string[];
}

export interface WhatIfOptions {
  /** Examples kept per group (default 3). */
  readonly examples?: number;
  /**
   * The calls the policy admitted, from the longest history window before the first decision on,
   * each with how and when it ended (`historyFromCalls` of the CLI). Given, rules' history
   * conditions are replayed too: each call's over the calls admitted before it was requested,
   * counted as in flight until their ending was written. Without it they are not (a decision a
   * history condition took part in is counted under `history`).
   */
  readonly history?: readonly HistoryRecord[];
}

/**
 * Replays recorded decisions through a candidate document, rules only: each call is decided
 * again by `evaluateCall` (the gates, the default table, the rules and a model's view, exactly
 * as the policy stage decides before its history gates) over the descriptor it was validated
 * against, and compared with the decision recorded. Decisions a history gate made or tightened
 * (rate limits, budgets, a delegation chain, a descriptor gone at the time) are not replayed but
 * counted by gate; neither are those whose descriptor is no longer known. The candidate's own
 * rate limits and budgets are listed in `candidateHistoryGates`, never simulated. Nothing runs.
 */
export function whatIf(candidate: PolicyDocument, recorded: Iterable<RecordedDecision>, records: Iterable<ToolRecord>, options: WhatIfOptions = {}): WhatIfReport {
  const keep = options.examples ?? 3;
  const byVersion = new Map<string, ToolRecord>();
  for (const r of records) byVersion.set(`${r.descriptor.name}@${r.descriptor.version}`, r);
  const groups = new Map<string, { from: DecisionSide; to: DecisionSide; examples: WhatIfExample[]; callIds: string[] }>();
  const notReplayed: Partial<Record<NotReplayedReason, number>> = {};
  const under = new Set<string>();
  let considered = 0;
  let replayed = 0;
  let otherRules = 0;
  const calls = [...recorded].sort((a, b) => a.requestedAt.localeCompare(b.requestedAt) || a.callId.localeCompare(b.callId));
  const allRecords = [...records];
  const history = options.history === undefined ? undefined : withActionTypes(options.history, allRecords);
  const treeRootOf = treeRoots(history ?? []);
  // one fold of the history, moved forward as the decisions (in time order) are replayed
  const replay = history === undefined ? undefined : new HistoryReplay(candidate, history);
  for (const call of calls) {
    considered++;
    // a history condition that held took part in the decision: replayed only with the history it read
    const conditionsHeld = history === undefined && call.history?.some((h) => h.holds) === true;
    const gate = historyGateOf(call.ruleIds) ?? (conditionsHeld ? HISTORY_GATES.history : undefined);
    const record = byVersion.get(`${call.tool}@${call.version}`);
    const skip: NotReplayedReason | undefined = gate ?? (record === undefined || record.descriptorHash !== call.descriptorHash ? "descriptor_unknown" : undefined);
    if (skip !== undefined || record === undefined) {
      const reason = skip ?? "descriptor_unknown";
      notReplayed[reason] = (notReplayed[reason] ?? 0) + 1;
      continue;
    }
    replayed++;
    under.add(call.policyVersion);
    // the run's labels are evidence on the decision: replayed as recorded, so the built-in rule and runLabels rules decide as they would have
    const runLabels = call.runLabels === undefined ? undefined : new Map(call.runLabels.map((s) => [s.label, s] as const));
    const base = { tool: record.descriptor, principal: call.principal, mode: call.mode, flags: call.flags, scope: call.scope, ...(runLabels === undefined ? {} : { runLabels }) };
    const findings = replay?.findings(historyCallOf(call, record, treeRootOf), (r) => ruleMatches(r, base), Date.parse(call.requestedAt));
    const e = evaluateCall(candidate, findings === undefined ? base : { ...base, history: new Map(findings.map((f) => [f.ruleId, f])) });
    const from: DecisionSide = { decision: call.decision, ruleIds: documentRuleIds(call.ruleIds) };
    const to: DecisionSide = { decision: e.decision, ruleIds: [...e.ruleIds] };
    if (from.decision === to.decision) {
      if (from.ruleIds.join(",") !== to.ruleIds.join(",")) otherRules++;
      continue;
    }
    const key = JSON.stringify([from, to]);
    let g = groups.get(key);
    if (g === undefined) {
      g = { from, to, examples: [], callIds: [] };
      groups.set(key, g);
    }
    g.callIds.push(call.callId);
    if (g.examples.length < keep) {
      g.examples.push({
        callId: call.callId,
        requestedAt: call.requestedAt,
        tool: call.tool,
        principal: call.principal,
        mode: call.mode,
        policyVersion: call.policyVersion,
        reasonBefore: call.reason,
        reasonAfter: e.reason,
      });
    }
  }
  const changes = [...groups.values()]
    .map((g) => ({ ...g, count: g.callIds.length }))
    .sort((a, b) => b.count - a.count || JSON.stringify([a.from, a.to]).localeCompare(JSON.stringify([b.from, b.to])));
  const changed = changes.reduce((n, g) => n + g.count, 0);
  return {
    candidateVersion: candidate.version,
    considered,
    replayed,
    changed,
    unchanged: replayed - changed,
    sameDecisionOtherRules: otherRules,
    changes,
    notReplayed,
    recordedUnder: [...under].sort(),
    candidateHistoryGates: historyGatesOf(candidate, history !== undefined),
  };
}

/** The recorded call as the current call of its history, as the policy stage saw it. */
function historyCallOf(call: RecordedDecision, record: ToolRecord, treeRootOf: (callId: string, parent: string | undefined) => string | undefined): HistoryCall {
  const treeRoot = treeRootOf(call.callId, call.parentCallId);
  return {
    callId: call.callId,
    tool: record.descriptor,
    principal: call.principal,
    runId: call.runId ?? call.callId,
    ...(treeRoot === undefined ? {} : { treeRoot }),
    args: call.args,
  };
}

/** A call's tree root: its own record's, else its parent's, else itself when it has no parent. */
function treeRoots(history: readonly HistoryRecord[]): (callId: string, parent: string | undefined) => string | undefined {
  const byCall = new Map(history.map((r) => [r.callId, r.treeRoot] as const));
  return (callId, parent) => byCall.get(callId) ?? (parent === undefined ? callId : byCall.get(parent));
}

/** The parts of a document whose decisions depend on earlier calls (rules' history conditions only when no history is replayed). */
function historyGatesOf(doc: PolicyDocument, historyReplayed: boolean): string[] {
  const out: string[] = [];
  if (doc.rateLimits.perPrincipal !== undefined) out.push("rateLimits.perPrincipal");
  for (const [name, p] of Object.entries(doc.principals)) if (p.rateLimit !== undefined) out.push(`principals.${name}.rateLimit`);
  if (doc.rateLimits.perTool.length > 0) out.push("rateLimits.perTool");
  if (doc.budgets.maxCallsPerPrincipal !== undefined) out.push("budgets.maxCallsPerPrincipal");
  if (doc.budgets.maxCallsPerRun !== undefined) out.push("budgets.maxCallsPerRun");
  for (const l of doc.budgets.ledgers ?? []) out.push(`budgets.ledgers.${l.id}`);
  // replayed without history, a rule with a history condition never matches
  if (!historyReplayed) for (const r of historyRules(doc)) out.push(`rules.${r.id}.when.history`);
  return out;
}
