import { acceptDecision, runStage, serveRpc, type Bus, type Logger } from "@warden/bus";
import { consumerName, DECIDE_SUBJECTS, QUEUE_APPROVER, stageFilterSubject, SUBJECT_APPROVER_PENDING, type PolicyDocument } from "@warden/contracts";
import { openApprovalStore } from "./approval-store.js";
import { approvalRequestHandler } from "./handlers/tool-policy-checked.js";
import { watchPolicyDocument } from "./policy-document.js";
import { decideHandler } from "./rpc/decide.js";
import { openProjectedInbox } from "./projected-inbox.js";
import { pendingHandler } from "./rpc/pending.js";
import { loadSigningKey, publishSigningKey } from "./signing-key.js";
import { startSweeper } from "./sweeper.js";
import { toolTitleReader } from "./tool-titles.js";

export const APPROVER_STAGE = "approver-request";

export interface ApproverServiceDeps {
  readonly bus: Bus;
  readonly log: Logger;
  /** Ed25519 private key (PEM) grants are signed with; a fresh one is made when absent. */
  readonly signingKeyPem?: string;
  readonly sweepIntervalMs?: number;
  readonly concurrency?: number;
  /** How long a decided record may miss its event before the sweeper appends it. */
  readonly repairGraceMs?: number;
  /** How long `pending` waits for the projected inbox to reach the stream's end. */
  readonly inboxWaitMs?: number;
}

export interface ApproverService {
  /** The key this process signs grants with, as published in `warden_policy`. */
  readonly signingKey: { readonly keyId: string; readonly publicKeyDerBase64: string };
  /** The policy document in force here (approval lifetimes, who may approve). */
  document(): PolicyDocument;
  stop(): Promise<void>;
}

export async function startApproverService(deps: ApproverServiceDeps): Promise<ApproverService> {
  const { bus } = deps;
  const log = deps.log.child({ stage: APPROVER_STAGE });
  const key = loadSigningKey(deps.signingKeyPem);
  await publishSigningKey(bus, key);
  const documents = await watchPolicyDocument(bus, log);
  const approvals = await openApprovalStore(bus, log);
  const inbox = await openProjectedInbox(bus, log, deps.inboxWaitMs ?? 2_000);
  const titleOf = await toolTitleReader(bus);
  const decide = serveRpc(bus, DECIDE_SUBJECTS, QUEUE_APPROVER, log, decideHandler({ bus, log, documents, approvals, signer: key }));
  const pending = serveRpc(bus, SUBJECT_APPROVER_PENDING, QUEUE_APPROVER, log, pendingHandler(inbox, approvals));
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
    handle: approvalRequestHandler({ bus, documents, approvals, titleOf }),
  });
  log.info({ keyId: key.keyId }, "approver signing key published");
  return {
    signingKey: { keyId: key.keyId, publicKeyDerBase64: key.publicKeyDerBase64 },
    document: () => documents.current(),
    async stop() {
      await stage.stop();
      await Promise.allSettled([decide.drain(), pending.drain()]);
      await sweeper.stop();
      approvals.stop();
      inbox.stop();
      documents.stop();
    },
  };
}
