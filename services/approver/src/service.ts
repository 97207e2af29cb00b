import { readCallHistory, runStage, serveRpc, type Bus, type Logger } from "@warden/bus";
import { acceptDecision, announceService, createTurns, followPolicyDocument, loadSigningKey, openExecutorLiveness, type ServiceMetrics } from "@warden/service-kit";
import {
  APPROVER_DELIVER_SUBJECTS,
  APPROVER_PENDING_SUBJECTS,
  CANCEL_SUBJECTS,
  consumerName,
  DECIDE_SUBJECTS,
  QUEUE_APPROVER,
  stageFilterSubject,
} from "@warden/contracts/subjects";
import { type PolicyDocument } from "@warden/contracts/policy";
import { grantStatementOf, verifyGrantSignature } from "@warden/contracts/approval";
import { openApprovalStore } from "./approval-store.js";
import { openDeliveryCursors } from "./delivery-cursors.js";
import { editedArgsChecker } from "./edited-args.js";
import { handleToolPolicyChecked } from "./handlers/tool-policy-checked.js";
import { openRequestedApprovals } from "./requested-approvals.js";
import { cancelHandler } from "./rpc/cancel.js";
import { decideHandler } from "./rpc/decide.js";
import { deliverHandler } from "./rpc/deliver.js";
import { pendingHandler } from "./rpc/pending.js";
import { openSessionGrants } from "./session-grants.js";
import { readStreamOutcome } from "./stream-outcome.js";
import { startSweeper } from "./sweeper.js";
import { toolFactsReader } from "./tool-facts.js";

export const APPROVER_STAGE = "approver-request";

export interface ApproverServiceDeps {
  readonly bus: Bus;
  readonly log: Logger;
  /**
   * Ed25519 private key (PKCS#8 PEM) grants are signed with; executors pin its public half
   * (generateApproverKeyPair mints a pair). A fresh key is made when absent, which no executor
   * has pinned: only tests that read `signingKey` back should leave it out.
   */
  readonly signingKeyPem?: string;
  readonly sweepIntervalMs?: number;
  readonly concurrency?: number;
  /** How long a decided record may miss its event before the sweeper appends it. */
  readonly repairGraceMs?: number;
  /** How long `pending` waits for its read of the stream's approval requests to reach the stream's end. */
  readonly inboxWaitMs?: number;
  /** The process's metrics, when it serves them: the approver adds what waits for people. */
  readonly metrics?: ServiceMetrics;
}

export interface ApproverService {
  /** The key this process signs grants with: the public half is what executors must pin. */
  readonly signingKey: { readonly keyId: string; readonly publicKeyDerBase64: string };
  /** The policy document in force here (approval lifetimes, who may approve). */
  document(): PolicyDocument;
  stop(): Promise<void>;
}

export async function startApproverService(deps: ApproverServiceDeps): Promise<ApproverService> {
  const { bus } = deps;
  const log = deps.log.child({ stage: APPROVER_STAGE });
  const key = loadSigningKey(deps.signingKeyPem);
  const documents = await followPolicyDocument(bus, log);
  const approvals = await openApprovalStore(bus, log);
  const factsOf = await toolFactsReader(bus);
  const requests = await openRequestedApprovals(bus, log, deps.inboxWaitMs ?? 2_000);
  const sessions = await openSessionGrants(
    bus,
    log,
    (g) => g.data.keyId === key.keyId && verifyGrantSignature(key.publicKeyDerBase64, grantStatementOf(g.callId, g.data), g.data.signature),
  );
  if (deps.metrics !== undefined) {
    const waiting = () => approvals.open().filter((e) => e.value.status === "pending" && Date.parse(e.value.expiresAt) > Date.now());
    deps.metrics.gauge("warden_approvals_pending", "Approvals waiting for a person (this approver's lock records)", () => waiting().length);
    deps.metrics.gauge("warden_approvals_oldest_pending_seconds", "How long the oldest approval waiting for a person has waited", () => {
      const oldest = Math.min(...waiting().map((e) => Date.parse(e.value.requestedAt)));
      return Number.isFinite(oldest) ? (Date.now() - oldest) / 1000 : 0;
    });
    deps.metrics.gauge("warden_session_grants_active", "Session grants in force (unexpired; revoked ones until the approver reads the revoke)", () => sessions.all(new Date()).length);
  }
  let stopping = false;
  const decide = serveRpc(bus, DECIDE_SUBJECTS, QUEUE_APPROVER, log, decideHandler({ bus, log, documents, approvals, signer: key, factsOf, checkArgs: editedArgsChecker(), sessions }));
  const cancel = serveRpc(bus, CANCEL_SUBJECTS, QUEUE_APPROVER, log, cancelHandler({ bus, log, documents }));
  const outcomeOf = (domain: string, callId: string) => readStreamOutcome(bus, domain, callId);
  const pending = serveRpc(bus, APPROVER_PENDING_SUBJECTS, QUEUE_APPROVER, log, pendingHandler({ log, requests, approvals, documents, outcomeOf, sessions, historyOf: (callId) => readCallHistory(bus, callId) }));
  const deliver = serveRpc(bus, APPROVER_DELIVER_SUBJECTS, QUEUE_APPROVER, log, deliverHandler({ log, requests, approvals, documents, outcomeOf, cursors: await openDeliveryCursors(bus), stopping: () => stopping }));
  const sweeper = startSweeper({
    bus,
    log,
    approvals,
    intervalMs: deps.sweepIntervalMs ?? 1_000,
    ...(deps.repairGraceMs === undefined ? {} : { repairGraceMs: deps.repairGraceMs }),
  });
  const stage = await runStage({
    bus,
    log,
    durable: consumerName(APPROVER_STAGE),
    eventType: "ToolPolicyChecked",
    filterSubject: stageFilterSubject("ToolPolicyChecked"),
    accept: acceptDecision("require_approval"),
    ...(deps.concurrency === undefined ? {} : { concurrency: deps.concurrency }),
    handle: handleToolPolicyChecked({ bus, documents, approvals, factsOf, turns: createTurns(), liveness: await openExecutorLiveness(bus, log), sessions, signer: key }),
  });
  log.info({ keyId: key.keyId, publicKey: key.publicKeyDerBase64 }, "approver signing with its key");
  const discovery = announceService(bus, log, { name: "warden-approver", description: "approval cards, decisions, session grants, expiry", metadata: { keyId: key.keyId } });
  return {
    signingKey: { keyId: key.keyId, publicKeyDerBase64: key.publicKeyDerBase64 },
    document: () => documents.current(),
    async stop() {
      await discovery.stop();
      stopping = true;
      await stage.stop();
      await Promise.allSettled([decide.drain(), pending.drain(), deliver.drain(), cancel.drain()]);
      await sweeper.stop();
      approvals.stop();
      await requests.stop();
      await sessions.stop();
      documents.stop();
    },
  };
}
