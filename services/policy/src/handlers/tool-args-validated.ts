import { ACK, appendEvent, readEvent, type Bus, type StageContext, type StageOutcome } from "@warden/bus";
import type { DescriptorCache, ExecutorLiveness, PolicyDocumentFollower } from "@warden/service-kit";
import { newId, type ToolArgsValidated, type ToolPolicyChecked } from "@warden/contracts/events";
import { type ToolRecord } from "@warden/contracts/descriptor";
import { resultLabelsOf, type HistoryFinding, type RunLabelSource, type PolicyDocument } from "@warden/contracts/policy";
import { guardedByUntrusted, hasRunLabelRules, historyProbesOf, historyRules, ledgerChargesOf, needsTreeRoot, rateBucketsOf, ruleMatches, toolCost, type HistoryProbe } from "@warden/policy-engine";
import { labelRunOf, treeRootOf } from "../delegation-tree.js";
import type { RunLabelsIndex } from "../run-labels-index.js";
import type { HistoryIndex } from "../history-index.js";
import type { Attenuation } from "../attenuation-check.js";
import type { BudgetGuard } from "../budget-guard.js";
import type { Ledgers } from "../ledgers.js";
import type { RateLimiter } from "../rate-limiter.js";
import { policyCheckedEvent, policyFailedEvent, policyRejectedEvent, type Stamp } from "../domain/policy-events.js";
import { budgetExceeded, decideCall, executorUnavailable, historyFull, ledgerRefused, rateRefused, runLabelsFull, type Verdict } from "../domain/verdict.js";

export interface PolicyCheckDeps {
  readonly bus: Bus;
  readonly documents: PolicyDocumentFollower;
  readonly descriptors: DescriptorCache;
  readonly budgets: BudgetGuard;
  /** Checks calls made on behalf of another (parentCallId) against the recorded chain. */
  readonly attenuation?: Attenuation;
  /** The principals' token buckets (rateLimits, budgets.maxCallsPerPrincipal of the document). */
  readonly rates?: RateLimiter;
  /** The ledger budgets (budgets.ledgers of the document), reserved for every admitted call. */
  readonly ledgers?: Ledgers;
  /** Executor heartbeats: a call that would run now, to a domain with none, is refused UNAVAILABLE. */
  readonly liveness?: ExecutorLiveness;
  /** The history index rules' history conditions are decided with (docs/policy.md, History conditions). */
  readonly history?: HistoryIndex;
  /** The runs' data labels (docs/policy.md, Data labels): read for a send, an L4+ write or a rule on them; added to by labelled results. */
  readonly labels?: RunLabelsIndex;
}

const stamp = (): Stamp => ({ eventId: newId(), ts: new Date().toISOString() });

/**
 * ToolArgsValidated -> ToolPolicyChecked (+ ToolCallRejected on deny). Redelivery-safe: a decision
 * already written for this input is reused, and the budget counts each call once.
 */
export function handleToolArgsValidated(deps: PolicyCheckDeps) {
  const { bus } = deps;
  return async (event: ToolArgsValidated, ctx: StageContext): Promise<StageOutcome> => {
    // a first delivery cannot find its own decision; only a redelivery or a replay pays for the reads
    const earlier = ctx.possibleReplay ? await readEvent(bus, event.domain, event.callId, "ToolPolicyChecked") : undefined;
    if (earlier === undefined && ctx.possibleReplay && (await readEvent(bus, event.domain, event.callId, "ToolCallRejected"))) {
      // the call was closed without a decision (retries ran out): a replay must not reopen it
      return ACK;
    }
    const checked = earlier ?? (await decide(deps, event));
    if (checked === undefined) {
      ctx.log.warn("policy decision slot is taken by an unreadable event");
      return ACK;
    }
    if (checked.causationId !== event.eventId) {
      ctx.log.warn({ existingEventId: checked.eventId }, "call already has a policy decision for another cause");
      return ACK;
    }
    ctx.log.debug({ decision: checked.data.decision, ruleIds: checked.data.ruleIds }, "policy decided");
    if (checked.data.decision !== "deny") return ACK;
    const rejected = await appendEvent(bus, policyRejectedEvent(checked, stamp()));
    if (rejected.status === "already_written" && !rejected.ours) {
      ctx.log.warn({ existingEventId: rejected.existing?.eventId }, "call was already rejected by another cause");
    }
    return ACK;
  };
}

/**
 * Retries ran out (KV or the stream unreachable for a while): close the call with a rejection
 * rather than leave its caller waiting for a decision that will never come.
 */
export function handleToolArgsValidatedExhausted(deps: Pick<PolicyCheckDeps, "bus" | "documents" | "descriptors" | "ledgers" | "history">) {
  return async (event: ToolArgsValidated, reason: string, ctx: StageContext): Promise<void> => {
    if (await readEvent(deps.bus, event.domain, event.callId, "ToolPolicyChecked")) return;
    const r = await appendEvent(deps.bus, policyFailedEvent(event, reason, stamp()));
    ctx.log.error({ reason, appended: r.status }, "policy check gave up on the call");
    await releaseUnrecorded(deps, event).catch((err: unknown) => ctx.log.warn({ err }, "could not release the ledger reservations of a call the stage gave up on"));
  };
}

/**
 * A call the stage gave up on may have reserved ledger budget before its decision failed to be
 * written; with no decision to name them, its reservations are found from the document in force.
 */
async function releaseUnrecorded(deps: Pick<PolicyCheckDeps, "bus" | "documents" | "descriptors" | "ledgers" | "history">, event: ToolArgsValidated): Promise<void> {
  const record = await deps.descriptors.read(event.tool, event.data.version);
  if (record === undefined) return;
  const doc = deps.documents.current();
  if (deps.history !== undefined) {
    const recorded = (await historyProbes(deps, doc, record, event)).filter((p) => p.record);
    if (recorded.length > 0) await deps.history.settle(event.callId, recorded.map((p) => ({ key: p.key, ruleId: p.ruleId })), "released");
  }
  if (deps.ledgers === undefined) return;
  const charges = ledgerChargesOf(doc, { principal: event.principal, tool: event.tool, cost: toolCost(record.descriptor) }, Date.now());
  if (charges.length > 0) await deps.ledgers.settle(event.callId, charges, "released");
}

/** The history conditions that concern a call under `doc` (none without history rules: no reads then). */
async function historyProbes(deps: Pick<PolicyCheckDeps, "bus">, doc: PolicyDocument, record: ToolRecord, event: ToolArgsValidated): Promise<HistoryProbe[]> {
  if (historyRules(doc).length === 0) return [];
  const facts = { tool: record.descriptor, principal: event.principal, mode: event.mode, flags: event.data.flags, scope: event.data.scope };
  const treeRoot = needsTreeRoot(doc) ? await treeRootOf(deps.bus, event) : undefined;
  const call = { callId: event.callId, domain: event.domain, tool: record.descriptor, principal: event.principal, runId: event.correlationId, args: event.data.args, ...(treeRoot === undefined ? {} : { treeRoot }) };
  return historyProbesOf(doc, call, (r) => ruleMatches(r, facts));
}

/**
 * Decides and appends; returns the decision that holds the slot (ours, or an earlier one). With a
 * run budget, the decisions of one run are taken one at a time here, each counting the calls the
 * run has used (see BudgetGuard).
 */
async function decide(deps: PolicyCheckDeps, event: ToolArgsValidated): Promise<ToolPolicyChecked | undefined> {
  const doc = deps.documents.current();
  // admission first: a flood is refused before it costs a descriptor read or a decision
  const buckets = rateBucketsOf(doc, event.principal, event.tool);
  const limited = deps.rates === undefined || buckets.length === 0 ? undefined : await deps.rates.take(event.principal, buckets);
  if (limited !== undefined) return (await append(deps, event, rateRefused(limited.bucket, event.principal, limited.retryAfterMs), doc.version)).held;
  const record = await deps.descriptors.read(event.tool, event.data.version);
  const labelled = await runLabelFacts(deps, doc, record, event);
  const decideRest = async (findings?: readonly HistoryFinding[]): Promise<Verdict> => {
    let v = decideCall(doc, record, event, findings, labelled.runLabels);
    if (v.decision !== "deny" && record !== undefined && deps.attenuation !== undefined) {
      v = await deps.attenuation.check(doc, record.descriptor, event, v);
    }
    // only a call that would run now: one that waits for a person may find an executor by then (its card says none is up)
    if (v.decision === "allow" && deps.liveness !== undefined && !(await deps.liveness.isAlive(event.domain))) v = executorUnavailable(event.domain);
    return labelled.with(v);
  };
  const probes = record === undefined || deps.history === undefined ? [] : await historyProbes(deps, doc, record, event);
  let verdict: Verdict;
  if (probes.length === 0 || deps.history === undefined) {
    verdict = await decideRest();
  } else {
    // the limit's check and the call's record in the index are one compare-and-set (HistoryIndex.decide)
    const h = await deps.history.decide(event.callId, probes, Date.now(), decideRest);
    verdict = { ...(h.full === undefined ? h.value : historyFull(h.full)), history: h.findings, historyHolds: h.holds };
  }
  const history = deps.history;
  // a later refusal (run budget, ledger) takes back what the call recorded in the history index
  const refusedLater = async (v: Verdict): Promise<Verdict> => {
    const holds = verdict.historyHolds ?? [];
    if (holds.length > 0 && history !== undefined) await history.settle(event.callId, holds, "released");
    return verdict.history === undefined ? v : { ...v, history: verdict.history };
  };
  const max = doc.budgets.maxCallsPerRun;
  // the ledgers reserve last, for a call nothing else refused, so a refused call holds no budget
  const reserve = async (v: Verdict): Promise<Verdict> => {
    if (v.decision === "deny" || deps.ledgers === undefined || record === undefined) return v;
    const charges = ledgerChargesOf(doc, { principal: event.principal, tool: event.tool, cost: toolCost(record.descriptor) }, Date.now());
    if (charges.length === 0) return v;
    const r = await deps.ledgers.reserve(event.callId, event.domain, charges);
    return r.ok ? { ...v, reservations: r.reservations } : refusedLater(ledgerRefused(r.exceeded));
  };
  if (verdict.decision === "deny" || max === undefined) return (await append(deps, event, await reserve(verdict), doc.version)).held;
  return deps.budgets.withRun(event.correlationId, async (used) => {
    const v = used >= max ? await refusedLater(budgetExceeded(event.correlationId, max)) : await reserve(verdict);
    const { held, seq } = await append(deps, event, v, doc.version);
    return { value: held, ...(seq !== undefined && v.decision !== "deny" ? { admitted: { callId: event.callId, seq } } : {}) };
  });
}

interface RunLabelFacts {
  /** The run's labels, when the decision needs them (undefined: not read). */
  readonly runLabels?: ReadonlyMap<string, RunLabelSource>;
  /** The verdict with what the decision read and what the result will carry. */
  with(v: Verdict): Verdict;
}

/**
 * What a decision needs of the data labels: the run's labels for a call the built-in untrusted rule
 * guards or when the document has rules on them, and the labels the result will carry. A call
 * that neither reads nor brings labels costs nothing here.
 */
async function runLabelFacts(deps: PolicyCheckDeps, doc: PolicyDocument, record: ToolRecord | undefined, event: ToolArgsValidated): Promise<RunLabelFacts> {
  if (record === undefined || deps.labels === undefined) return { with: (v) => v };
  const resultLabels = resultLabelsOf(record.descriptor);
  const reads = guardedByUntrusted(record.descriptor) || hasRunLabelRules(doc.rules);
  if (!reads && resultLabels.length === 0) return { with: (v) => v };
  const labelRun = await labelRunOf(deps.bus, event);
  const runLabels = reads ? await deps.labels.read(labelRun) : undefined;
  const sources = [...(runLabels?.values() ?? [])];
  return {
    ...(runLabels === undefined ? {} : { runLabels }),
    with: (v) => ({ ...v, labelRun, ...(resultLabels.length === 0 ? {} : { resultLabels }), ...(runLabels === undefined ? {} : { runLabels: sources }) }),
  };
}

async function append(deps: PolicyCheckDeps, event: ToolArgsValidated, proposed: Verdict, policyVersion: string) {
  let verdict = proposed;
  // kept before the decision is written, so before the call can run: a result on the stream always has its entry
  if (verdict.decision !== "deny" && verdict.resultLabels !== undefined && verdict.labelRun !== undefined && deps.labels !== undefined) {
    const r = await deps.labels.record(verdict.labelRun, { callId: event.callId, tool: event.tool, domain: event.domain, labels: [...verdict.resultLabels] });
    if (r === "full") verdict = { ...runLabelsFull(verdict.labelRun), labelRun: verdict.labelRun };
  }
  const checked = policyCheckedEvent(event, verdict, policyVersion, stamp());
  const appended = await appendEvent(deps.bus, checked);
  if (appended.status === "written") return { held: checked, seq: appended.seq };
  return { held: appended.existing?.type === "ToolPolicyChecked" ? appended.existing : undefined };
}
