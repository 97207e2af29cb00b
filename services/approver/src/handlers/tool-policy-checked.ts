import { ACK, appendEvent, readEvent, type Bus, type StageContext, type StageOutcome } from "@warden/bus";
import { newId, type ApprovalRequested, type ToolPolicyChecked } from "@warden/contracts/events";
import { levelOf, type ActionType, type PermissionLevel } from "@warden/contracts/descriptor";
import { type PolicyDocument } from "@warden/contracts/policy";

type Preview = NonNullable<ApprovalRequested["data"]["preview"]>;
import type { ApprovalStore } from "../approval-store.js";
import { notifyApprovers } from "../approval-notices.js";
import { approvalQuotaRejectedEvent, approvalRequestedEvent } from "../domain/approval-events.js";
import { openApprovalsOf } from "../domain/approval-quota.js";
import { recordOf, type DecisionMade } from "../domain/approval-record.js";
import { decidedRecord, signGrant, type Signer } from "../domain/decision.js";
import { sessionApproverMayDecide, sessionMismatch } from "../domain/session-terms.js";
import { appendDecision } from "../rpc/decide.js";
import type { SessionGrantEvent, SessionGrants } from "../session-grants.js";
import { previewForCard } from "../tool-preview.js";
import { readRequestContext } from "../request-context.js";
import type { ToolFacts } from "../tool-facts.js";
import type { Turns } from "@warden/service-kit";
import type { ExecutorLiveness, PolicyDocumentFollower } from "@warden/service-kit";

export interface ApprovalRequestDeps {
  readonly bus: Bus;
  readonly documents: PolicyDocumentFollower;
  readonly approvals: ApprovalStore;
  readonly factsOf: (tool: string, version: string) => Promise<ToolFacts>;
  /** One requester's requests at a time in this process, so the quota counts each one. */
  readonly turns: Turns;
  /** Executor heartbeats: a request to a domain with none live is flagged `noLiveExecutor` on its card. */
  readonly liveness?: ExecutorLiveness;
  /** Session grants people made: a call one covers is granted in its maker's name without asking. */
  readonly sessions?: SessionGrants;
  /** Signs the grants session grants give. */
  readonly signer: Signer;
}

/**
 * ToolPolicyChecked (require_approval) -> inbox record, then ApprovalRequested. The record comes
 * first so a decision never finds an event without one; a redelivery reuses the written request.
 * A requester with `approvalQuota.maxOpenPerRequester` approvals open is refused APPROVAL_QUOTA
 * instead (a ToolCallRejected of stage approver), so a flood cannot bury other requests. The
 * count is this approver's lock records (every copy watches them): exact within a copy; two
 * copies racing may each admit one more.
 */
export function handleToolPolicyChecked(deps: ApprovalRequestDeps) {
  const { bus, approvals } = deps;
  const previewsInFlight = new Map<string, number>();
  /** A requester's dry runs at once, at most: one flooding slow previews holds a few of the stage's slots, not all. */
  const MAX_PREVIEWS_PER_REQUESTER = 4;
  return async (checked: ToolPolicyChecked, ctx: StageContext): Promise<StageOutcome> => {
    if (checked.data.decision !== "require_approval") return ACK;
    // read once per message: the dry run and the card both need the descriptor
    let factsRead: Promise<ToolFacts> | undefined;
    const facts = () => (factsRead ??= deps.factsOf(checked.tool, checked.data.version));
    // what a session grant may cover depends on them: never an L5 call, nor one that needs a quorum
    const level = async (): Promise<{ level: PermissionLevel; actionType?: ActionType | undefined } | undefined> => {
      const { descriptor } = await facts();
      return descriptor === undefined ? undefined : { level: levelOf(descriptor), actionType: descriptor.actionType };
    };
    // the dry run waits outside the requester's turn: a slow one must not hold the turn, and so
    // every other call of that requester, behind it. Skipped where a session likely covers the call
    // (an in-memory look; the turn checks for real) or a redelivery finds its request written.
    const early =
      (await coveringSessionInMemory(deps.documents.current())) ||
      (ctx.possibleReplay && (await readEvent(bus, checked.domain, checked.callId, "ApprovalRequested")) !== undefined);
    const preview = early ? undefined : await boundedPreview();
    // inside the requester's turn, so two deliveries of one decision in this copy never both count
    return deps.turns.run(checked.principal, request);

    async function boundedPreview(): Promise<Preview | undefined> {
      const { descriptor } = await facts();
      if (descriptor?.preview !== true) return undefined;
      const running = previewsInFlight.get(checked.principal) ?? 0;
      if (running >= MAX_PREVIEWS_PER_REQUESTER) {
        return { error: { code: "RATE_LIMITED", message: `${checked.principal} has ${running} dry runs in flight already: this card has none` } };
      }
      previewsInFlight.set(checked.principal, running + 1);
      try {
        return await previewForCard(bus, checked, descriptor);
      } finally {
        const left = (previewsInFlight.get(checked.principal) ?? 1) - 1;
        if (left <= 0) previewsInFlight.delete(checked.principal);
        else previewsInFlight.set(checked.principal, left);
      }
    }

    async function request(): Promise<StageOutcome> {
      const existing = await readEvent(bus, checked.domain, checked.callId, "ApprovalRequested");
      if (existing !== undefined) return reuse(existing);
      // refused for the quota on an earlier delivery: a freed quota must not reopen the call
      if (ctx.possibleReplay && (await readEvent(bus, checked.domain, checked.callId, "ToolCallRejected"))) return ACK;
      const doc = deps.documents.current();
      // a session grant a person made covers it: granted in their name, nobody is asked (when its
      // maker may not decide this call after all, it is asked as any other, quota and dry run included)
      const session = await coveringSession(doc);
      if (session !== undefined) {
        const granted = await createBySession(doc, session);
        if (granted !== undefined) return granted;
      }
      const max = doc.approvalQuota.maxOpenPerRequester;
      const open = openApprovalsOf(approvals.open().map((e) => e.value), checked.principal, Date.now());
      if (open >= max) {
        const refused = await appendEvent(bus, approvalQuotaRejectedEvent(checked, open, max, { eventId: newId(), ts: new Date().toISOString() }));
        ctx.log.warn({ principal: checked.principal, open, max, appended: refused.status }, "approval quota reached, call refused");
        return ACK;
      }
      return create(doc, preview ?? (early ? await boundedPreview() : undefined));
    }

    /** Whether a session grant held here may cover this call, revocations not read (a hint, never a grant). */
    async function coveringSessionInMemory(doc: PolicyDocument): Promise<boolean> {
      if (deps.sessions === undefined) return false;
      const now = new Date();
      const candidates = deps.sessions.candidates(checked.domain, checked.tool, now);
      if (candidates.length === 0) return false;
      const l = await level();
      return candidates.some((g) => sessionMismatch(g, checked, doc, now, l) === undefined);
    }

    /** The oldest unrevoked session grant that covers this call, if any. */
    async function coveringSession(doc: PolicyDocument): Promise<SessionGrantEvent | undefined> {
      if (deps.sessions === undefined) return undefined;
      const now = new Date();
      const candidates = deps.sessions.candidates(checked.domain, checked.tool, now);
      const l = candidates.length === 0 ? undefined : await level();
      for (const g of candidates) {
        if (sessionMismatch(g, checked, doc, now, l) !== undefined) continue;
        if ((await deps.sessions.revocationOf(g.domain, g.callId)) !== undefined) continue;
        return g;
      }
      return undefined;
    }

    /** The request granted by `session`, or undefined (nothing written) when its maker may not decide this call. */
    async function createBySession(doc: PolicyDocument, session: SessionGrantEvent): Promise<StageOutcome | undefined> {
      const event = await requestEvent(doc, undefined);
      if (!sessionApproverMayDecide(doc, session.data.approver, event)) return undefined;
      return write(event, grantBySession(event, session), session);
    }

    async function create(doc: PolicyDocument, dryRun: Preview | undefined): Promise<StageOutcome> {
      return write(await requestEvent(doc, dryRun), undefined, undefined);
    }

    async function requestEvent(doc: PolicyDocument, preview: Preview | undefined): Promise<ApprovalRequested> {
      const [tool, context] = await Promise.all([facts(), readRequestContext(bus, checked)]);
      const built = approvalRequestedEvent(
        checked,
        { approvalId: newId(), title: tool.title, descriptor: tool.descriptor, intent: context.intent, chain: context.chain, doc, now: new Date() },
        { eventId: newId(), ts: new Date().toISOString() },
      );
      // the approver sees nobody to run it: the person deciding should know a grant would wait
      const noExecutor = deps.liveness !== undefined && !(await deps.liveness.isAlive(checked.domain));
      return {
        ...built,
        data: { ...built.data, ...(preview === undefined ? {} : { preview }), ...(noExecutor ? { noLiveExecutor: true as const } : {}) },
      };
    }

    async function write(event: ApprovalRequested, bySession: DecisionMade | undefined, session: SessionGrantEvent | undefined): Promise<StageOutcome> {
      await approvals.create(bySession === undefined ? recordOf(event) : decidedRecord(recordOf(event), bySession));
      const appended = await appendEvent(bus, event);
      if (appended.status === "written") {
        if (bySession !== undefined) {
          await appendDecision(bus, event, bySession).catch((err: unknown) => ctx.log.error({ err }, "session grant event append failed, left to the sweeper"));
          ctx.log.info({ approvalId: event.data.approvalId, sessionGrant: session?.callId, approver: bySession.approver }, "approval granted by a session grant");
          return ACK;
        }
        ctx.log.info({ approvalId: event.data.approvalId, expiresAt: event.data.expiresAt }, "approval requested");
        notifyApprovers(bus, deps.documents.current(), event, ctx.log);
        return ACK;
    }
    // another delivery of this message won the slot: our record is an orphan nobody can decide
    await approvals.remove(event.data.approvalId);
    if (appended.existing?.type === "ApprovalRequested") return reuse(appended.existing);
    ctx.log.warn("approval request slot is taken by an unreadable event");
    return ACK;
    }

    function grantBySession(requested: ApprovalRequested, session: SessionGrantEvent): DecisionMade {
      const now = new Date();
      const grant = signGrant(requested, session.data.approver, now, newId(), deps.signer, { bySession: { grantId: session.callId, approvalId: session.data.approvalId } });
      return { decision: "grant", approver: session.data.approver, decidedAt: now.toISOString(), grant };
    }

    async function reuse(requested: ApprovalRequested): Promise<StageOutcome> {
      if (requested.causationId !== checked.eventId) {
        ctx.log.warn({ existingEventId: requested.eventId }, "call already has an approval request for another cause");
        return ACK;
      }
      // its record was written before it; this only restores one that has gone missing
      await approvals.create(recordOf(requested));
      // the delivery that wrote it may have stopped before telling anyone (a notice is a cue: twice is harmless)
      const record = await approvals.get(requested.data.approvalId);
      if (record?.value.status === "pending" && Date.parse(requested.data.expiresAt) > Date.now()) notifyApprovers(bus, deps.documents.current(), requested, ctx.log);
      return ACK;
    }
  };
}
