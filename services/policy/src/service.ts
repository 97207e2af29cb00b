import { runStage, type Bus, type Logger, type StageRunner } from "@warden/bus";
import { announceService, followPolicyDocument, openExecutorLiveness, startDescriptorCache } from "@warden/service-kit";
import { consumerName, OUTCOME_EVENT_TYPES, stageFilterSubject } from "@warden/contracts/subjects";
import { DURABLES_POLICY_SETTLE } from "@warden/contracts/permissions";
import { type PolicyDocument } from "@warden/contracts/policy";
import { openAttenuation } from "./attenuation-check.js";
import { openBudgetGuard } from "./budget-guard.js";
import { maySettle } from "./domain/settlement.js";
import { handleApprovalDenied } from "./handlers/approval-denied.js";
import { handleApprovalExpired } from "./handlers/approval-expired.js";
import { handleOutcome } from "./handlers/outcome.js";
import { handleToolCallRejected } from "./handlers/tool-call-rejected.js";
import { openHistoryIndex, type HistoryIndex } from "./history-index.js";
import { openLedgers, type Ledgers } from "./ledgers.js";
import { openRateLimiter } from "./rate-limiter.js";
import { openRunLabels, type RunLabelsIndex } from "./run-labels-index.js";
import { handleToolArgsValidatedExhausted, handleToolArgsValidated } from "./handlers/tool-args-validated.js";

export const POLICY_STAGE = "policy-check";

export interface PolicyServiceDeps {
  readonly bus: Bus;
  readonly log: Logger;
  readonly concurrency?: number;
  /**
   * Refuse calls that would run now to a domain with no live executor heartbeat (UNAVAILABLE),
   * instead of leaving them to run whenever one starts. The process turns it on
   * (WARDEN_POLICY_REQUIRE_LIVE_EXECUTOR); tests of the policy alone, with no executors, leave it off.
   * @default false
   */
  readonly requireLiveExecutor?: boolean;
}

export interface PolicyService {
  /** The document the stage decides with right now (hot-reloaded from KV). */
  document(): PolicyDocument;
  stop(): Promise<void>;
}

export async function startPolicyService(deps: PolicyServiceDeps): Promise<PolicyService> {
  const { bus } = deps;
  const log = deps.log.child({ stage: POLICY_STAGE });
  const documents = await followPolicyDocument(bus, log);
  const descriptors = await startDescriptorCache(bus);
  const budgets = await openBudgetGuard(bus);
  const attenuation = await openAttenuation(bus, descriptors);
  const rates = await openRateLimiter(bus);
  const ledgers = await openLedgers(bus);
  const history = await openHistoryIndex(bus);
  const labels = await openRunLabels(bus);
  const liveness = deps.requireLiveExecutor === true ? await openExecutorLiveness(bus, log) : undefined;
  const stage = await runStage({
    bus,
    log,
    durable: consumerName(POLICY_STAGE),
    eventType: "ToolArgsValidated",
    filterSubject: stageFilterSubject("ToolArgsValidated"),
    ...(deps.concurrency === undefined ? {} : { concurrency: deps.concurrency }),
    handle: handleToolArgsValidated({ bus, documents, descriptors, budgets, attenuation, rates, ledgers, history, labels, ...(liveness === undefined ? {} : { liveness }) }),
    onExhausted: handleToolArgsValidatedExhausted({ bus, documents, descriptors, ledgers, history }),
  });
  const settling = await startSettlement(bus, deps.log.child({ stage: "policy-settle" }), ledgers, history, labels);
  const discovery = announceService(deps.bus, deps.log, { name: "warden-policy", description: "policy decisions: grade x mode, flags, scopes, principals, budgets" });
  return {
    document: () => documents.current(),
    async stop() {
      await discovery.stop();
      await stage.stop();
      await Promise.all(settling.map((s) => s.stop()));
      descriptors.stop();
      documents.stop();
      budgets.stop();
    },
  };
}

/**
 * The results that settle ledger reservations, one durable each (a durable has one filter on
 * every server version): the outcome slot, a stage's later refusal, a denied or expired approval.
 * Every document has the built-in data-label rule, so any call may hold a run-label entry: each
 * result is read (one decision read; the labels, ledgers and history index only when it names them).
 */
async function startSettlement(bus: Bus, log: Logger, ledgers: Ledgers, history: HistoryIndex, labels: RunLabelsIndex): Promise<StageRunner[]> {
  const accept = (raw: unknown): boolean => maySettle(raw);
  const deps = { bus, ledgers, history, labels };
  const common = { bus, log, accept, concurrency: 16 } as const;
  return Promise.all([
    runStage({ ...common, durable: DURABLES_POLICY_SETTLE.Outcome, eventType: OUTCOME_EVENT_TYPES, filterSubject: stageFilterSubject("ToolCallFinished"), handle: handleOutcome(deps) }),
    runStage({ ...common, durable: DURABLES_POLICY_SETTLE.ToolCallRejected, eventType: "ToolCallRejected", filterSubject: stageFilterSubject("ToolCallRejected"), handle: handleToolCallRejected(deps) }),
    runStage({ ...common, durable: DURABLES_POLICY_SETTLE.ApprovalDenied, eventType: "ApprovalDenied", filterSubject: stageFilterSubject("ApprovalDenied"), handle: handleApprovalDenied(deps) }),
    runStage({ ...common, durable: DURABLES_POLICY_SETTLE.ApprovalExpired, eventType: "ApprovalExpired", filterSubject: stageFilterSubject("ApprovalExpired"), handle: handleApprovalExpired(deps) }),
  ]);
}
