import { z } from "zod";
import { ToolCallRequestedSchema, type ShadowDecision } from "@warden/contracts/events";
import { resolveToolName, TokenSchema, VersionSchema } from "@warden/contracts/subjects";
import { fail, ok, type Outcome } from "@warden/contracts/errors";
import { CallModeSchema, levelOf, type Grade, type ToolRecord, type ToolStatus, type ToolView } from "@warden/contracts/descriptor";
import { type Decision, type HistoryFinding, type PolicyDocument, type RunLabelSource } from "@warden/contracts/policy";
import { JsonValueSchema } from "@warden/contracts/json";
import { quorumOf, type Quorum } from "./approval-authority.js";
import { compileToolView } from "./compile-tool-view.js";
import { evaluateCall } from "./evaluate-call.js";
import { ruleMatches, type GateRuleId } from "./evaluate.js";
import { historyRules } from "./history.js";
import { runLabelsFromHistory } from "./history-labels.js";
import { replayHistory, withActionTypes, type HistoryRecord } from "./history-replay.js";
import { HISTORY_GATES, type HistoryGate } from "./history-gates.js";
import { ledgerChargesOf, toolCost } from "./ledger.js";
import { RATE_RULES, rateBucketsOf } from "./rate-limits.js";
import { newestEnabled, versionsByName } from "./tool-versions.js";

/**
 * One concrete request, as a caller would make it: the tool (name or wire name), who asks, in
 * which mode, with which flags and scope. `args` are accepted so a request can be pasted as is;
 * policy never reads them (the registry validates them against the inputSchema).
 */
export const DecideRequestSchema = z.strictObject({
  tool: z.string().min(1).max(200),
  principal: TokenSchema,
  mode: CallModeSchema,
  /** Pin a version; otherwise the newest enabled version is decided, as the registry picks it. */
  version: VersionSchema.optional(),
  flags: z.record(z.string(), z.boolean()).default({}),
  scope: TokenSchema.nullable().default(null),
  args: JsonValueSchema.optional(),
  /** The run the call belongs to (budgets.maxCallsPerRun counts per run). */
  runId: TokenSchema.optional(),
  /** Set for a delegated call: the chain check then applies, which needs the stream. */
  parentCallId: TokenSchema.optional(),
  /** The call's id, and when it is decided, for history conditions (default: `request`, now). */
  callId: TokenSchema.optional(),
  at: z.iso.datetime().optional(),
  /** The top call of its delegation tree, for conditions scoped `tree`. */
  treeRoot: TokenSchema.optional(),
});
export type DecideRequest = z.infer<typeof DecideRequestSchema>;
export type DecideRequestInput = z.input<typeof DecideRequestSchema>;

/**
 * A request as `decideRequest` takes it: the fields above, or a recorded ToolCallRequested event
 * (as `warden trace --json` shows it), whose principal, mode, flags, scope and version are used.
 */
export function parseDecideRequest(value: unknown): Outcome<DecideRequest> {
  const isEvent = typeof value === "object" && value !== null && (value as { type?: unknown }).type === "ToolCallRequested";
  if (isEvent) {
    const e = ToolCallRequestedSchema.safeParse(value);
    if (!e.success) return fail("INVALID_REQUEST", `not a valid ToolCallRequested event: ${issuesText(e.error)}`);
    const { tool, principal, mode, correlationId, parentCallId, data } = e.data;
    return ok({
      tool,
      principal,
      mode,
      flags: data.flags,
      scope: data.scope,
      args: data.args,
      runId: correlationId,
      ...(data.version === undefined ? {} : { version: data.version }),
      ...(parentCallId === undefined ? {} : { parentCallId }),
    });
  }
  const r = DecideRequestSchema.safeParse(value);
  if (!r.success) return fail("INVALID_REQUEST", `not a valid request: ${issuesText(r.error)}`);
  return ok(r.data);
}

/** A gate the live policy stage applies that depends on earlier calls, so it is not decided here. */
export interface NotEvaluated {
  readonly gate: HistoryGate | "approval_quota";
  readonly detail: string;
}

export interface DecideResult {
  /** The request as decided: the tool by its name, the version the registry would pick. */
  readonly request: DecideRequest & { readonly version: string };
  readonly tool: { readonly name: string; readonly version: string; readonly grade: Grade; readonly status: ToolStatus; readonly descriptorHash: string };
  readonly decision: Decision;
  /** Every rule that made the decision, the settling one first, as ToolPolicyChecked records them. */
  readonly ruleIds: readonly string[];
  readonly reason: string;
  /** Set when a gate refused the call before the table and the rules. */
  readonly gate?: GateRuleId;
  readonly policyVersion: string;
  /** Set when shadow rules matched: what they would have decided (they never decide). */
  readonly shadow?: ShadowDecision;
  /**
   * For a call that waits for a person: how many distinct people the approver would ask, the entry
   * (or default) that says so and why, its conditions read with the request's args.
   */
  readonly quorum?: Quorum;
  /** The view the caller would be shown (same principal, mode, flags and scope), with every hidden tool explained. */
  readonly toolView: ToolView;
  /** What the live stage would also weigh and this cannot: rate limits, budgets, a delegation chain, the approval quota. */
  readonly notEvaluated: readonly NotEvaluated[];
  /** With a history: each history condition checked, with the earlier calls it counted. */
  readonly history?: readonly HistoryFinding[];
  /** With a history: the labels the request's run has read, each with the earliest result that carried it. */
  readonly runLabels?: readonly RunLabelSource[];
}

/**
 * What the policy stage would decide for one request under `doc`, with no bus: the version the
 * registry would pick (or the pinned one), then `evaluateCall` exactly as the stage runs it, and
 * the ToolView the caller would be shown. Gates that depend on earlier calls (rate limits,
 * budgets, delegation) are listed in `notEvaluated`, never guessed. A tool the registry would
 * refuse before policy (unknown, no enabled version) is an error value with the registry's code.
 */
export function decideRequest(doc: PolicyDocument, records: Iterable<ToolRecord>, request: DecideRequest, history?: readonly HistoryRecord[]): Outcome<DecideResult> {
  const all = [...records];
  const name = resolveToolName(request.tool);
  const versions = name === undefined ? [] : (versionsByName(all).get(name) ?? []);
  if (name === undefined || versions.length === 0) {
    return fail("UNKNOWN_TOOL", `unknown tool ${JSON.stringify(request.tool)}: none of the ${versionsByName(all).size} known tools has that name`, { tool: request.tool });
  }
  const pinned = request.version;
  const record = pinned === undefined ? newestEnabled(versions) : versions.find((r) => r.descriptor.version === pinned);
  if (record === undefined && pinned !== undefined) {
    return fail("UNKNOWN_TOOL", `${name} has no version ${pinned} (known: ${versions.map((r) => r.descriptor.version).join(", ")})`, { tool: name, version: pinned });
  }
  if (record === undefined || record.status !== "enabled") {
    return fail("TOOL_DISABLED", pinned === undefined ? `${name} has no enabled version` : `${name}@${pinned} is ${record?.status ?? "disabled"}`, { tool: name });
  }
  const d = record.descriptor;
  const base = { tool: d, principal: request.principal, mode: request.mode, flags: request.flags, scope: request.scope };
  // history conditions are evaluated only from a history given: never guessed from none
  const nowMs = request.at === undefined ? Date.now() : Date.parse(request.at);
  const asHistory = historyCallOf(request, d);
  const findings = history === undefined ? undefined : replayHistory(doc, withActionTypes(history, all), asHistory, (r) => ruleMatches(r, base), nowMs);
  // the run's labels too, from the same history: what the built-in rule and runLabels rules read
  const runLabels = history === undefined ? undefined : runLabelsFromHistory(history, all, asHistory, nowMs);
  const facts = findings === undefined || runLabels === undefined ? base : { ...base, history: new Map(findings.map((f) => [f.ruleId, f])), runLabels };
  const e = evaluateCall(doc, facts);
  const toolView = compileToolView(all, doc, { principal: request.principal, mode: request.mode, flags: request.flags, scope: request.scope }, { explain: true });
  return ok({
    request: { ...request, tool: d.name, version: d.version },
    tool: { name: d.name, version: d.version, grade: d.grade, status: record.status, descriptorHash: record.descriptorHash },
    decision: e.decision,
    ruleIds: [...e.ruleIds],
    reason: e.reason,
    ...(e.gate === undefined ? {} : { gate: e.gate }),
    policyVersion: doc.version,
    toolView,
    ...(e.shadow === undefined ? {} : { shadow: e.shadow }),
    ...(e.decision === "require_approval" ? { quorum: quorumOf(doc, { tool: d.name, grade: d.grade, level: levelOf(d), actionType: d.actionType, args: request.args }) } : {}),
    notEvaluated: notEvaluated(doc, request, d.name, toolCost(d), e.decision, history !== undefined),
    ...(findings === undefined || findings.length === 0 ? {} : { history: findings }),
    ...(runLabels === undefined || runLabels.size === 0 ? {} : { runLabels: [...runLabels.values()] }),
  });
}

/** Earlier calls that do not say their action type get their tool's (its newest version's). */
/** The request as the current call of its history. */
function historyCallOf(request: DecideRequest, d: ToolRecord["descriptor"]) {
  const callId = request.callId ?? "request";
  // as the stage has it: a call with no parent is the top of its own tree
  const treeRoot = request.treeRoot ?? (request.parentCallId === undefined ? callId : undefined);
  return {
    callId,
    tool: d,
    principal: request.principal,
    runId: request.runId ?? "run",
    ...(treeRoot === undefined ? {} : { treeRoot }),
    args: request.args,
  };
}

/**
 * The live stage's other gates that could apply to this request: its buckets are drawn before
 * the decision (so they apply whatever it is), the run budget and the chain only to a call not
 * denied already, the approval quota only to a call that waits for a person.
 */
function notEvaluated(doc: PolicyDocument, request: DecideRequest, tool: string, cost: number, decision: Decision, historyGiven: boolean): NotEvaluated[] {
  const out: NotEvaluated[] = [];
  if (!historyGiven) {
    for (const r of historyRules(doc)) {
      const h = r.when.history;
      out.push({ gate: HISTORY_GATES.history, detail: `rule ${r.id}: a history condition over the ${h.scope}'s calls within ${h.within}; give --history FILE to decide it (without one it does not match)` });
    }
  }
  for (const b of rateBucketsOf(doc, request.principal, tool)) {
    const limit = `${b.limit.burst} calls, refilled at ${round(b.limit.ratePerSecond)}/s`;
    if (b.rule === RATE_RULES.principalBudget) {
      out.push({ gate: HISTORY_GATES.principalBudget, detail: `${b.rule}: ${limit}; depends on ${request.principal}'s earlier calls` });
    } else {
      out.push({ gate: HISTORY_GATES.rateLimit, detail: `${b.rule}: ${limit}; depends on ${request.principal}'s earlier calls` });
    }
  }
  if (decision === "deny") return out;
  const perRun = doc.budgets.maxCallsPerRun;
  if (perRun !== undefined) {
    out.push({ gate: HISTORY_GATES.runBudget, detail: `budgets.maxCallsPerRun: ${perRun} calls per run; depends on the calls run ${request.runId ?? "(the caller's run)"} already made` });
  }
  for (const c of ledgerChargesOf(doc, { principal: request.principal, tool, cost }, Date.now())) {
    const limits = [...(c.limit.calls === undefined ? [] : [`${c.limit.calls} calls`]), ...(c.limit.cost === undefined ? [] : [`${c.limit.cost} cost units`])].join(", ");
    out.push({
      gate: HISTORY_GATES.ledger,
      detail: `budgets.ledgers ${c.ledger}: ${limits} per ${ledgerPeriodOf(doc, c.ledger)} for ${c.holder}; this call would reserve 1 call and ${c.cost} cost units; depends on what ${c.holder} has reserved and spent this period`,
    });
  }
  if (request.parentCallId !== undefined) {
    out.push({ gate: HISTORY_GATES.delegation, detail: `a delegated call (parent ${request.parentCallId}) is also checked against its recorded chain, which can only tighten this decision` });
  }
  if (decision === "require_approval") {
    out.push({ gate: "approval_quota", detail: `approvalQuota: ${doc.approvalQuota.maxOpenPerRequester} open approvals per requester; depends on how many ${request.principal} has waiting` });
  }
  return out;
}

function ledgerPeriodOf(doc: PolicyDocument, id: string): string {
  return doc.budgets.ledgers?.find((l) => l.id === id)?.period ?? "period";
}

function round(n: number): number {
  return Math.round(n * 1e6) / 1e6;
}

function issuesText(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ");
}
