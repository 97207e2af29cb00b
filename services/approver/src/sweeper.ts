import { appendEvent, readEvent, type Bus, type JsonEntry, type Logger } from "@warden/bus";
import { newId, type ApprovalRequested, type EventType } from "@warden/contracts/events";
import type { ApprovalStore } from "./approval-store.js";
import { inApprovalWaitSpan } from "./approval-wait-span.js";
import { approvalExpiredEvent } from "./domain/approval-events.js";
import { isOverdue, type ApprovalRecord } from "./domain/approval-record.js";
import { decidedRecord, expiredRecord } from "./domain/decision.js";
import { settledOnStream, type StreamOutcome } from "./domain/settled-on-stream.js";
import { appendDecision } from "./rpc/decide.js";
import { readStreamOutcome } from "./stream-outcome.js";

export interface SweeperDeps {
  readonly bus: Bus;
  readonly log: Logger;
  readonly approvals: ApprovalStore;
  readonly intervalMs: number;
  /** How long a decided record may lack its event before the sweeper appends it (the decider normally does). */
  readonly repairGraceMs?: number;
}

export interface Sweeper {
  sweepOnce(now?: Date): Promise<void>;
  stop(): Promise<void>;
}

const EVENT_OF_STATUS: Record<Exclude<ApprovalRecord["status"], "pending">, EventType> = {
  granted: "ApprovalGranted",
  denied: "ApprovalDenied",
  expired: "ApprovalExpired",
};

/**
 * Expires overdue pending approvals (compare-and-set, then ApprovalExpired) and appends decision
 * events a crash left missing. Safe to run in every copy of the service: the CAS picks one winner.
 * Nothing is appended for a call whose stream already holds a terminal approval event: the lock
 * record is brought in line with the stream instead.
 */
export function startSweeper(deps: SweeperDeps): Sweeper {
  const { bus, log, approvals } = deps;
  const repairGraceMs = deps.repairGraceMs ?? 2_000;

  const expire = async (approvalId: string, now: Date) => {
    const fresh = await approvals.get(approvalId);
    if (fresh === undefined || fresh.value.status !== "pending") return;
    const r = fresh.value;
    const requested = await readEvent(bus, r.domain, r.callId, "ApprovalRequested");
    if (requested?.data.approvalId !== approvalId) {
      // its request never reached the stream (a crash or a lost race): nobody can decide it
      await approvals.remove(approvalId, fresh.revision);
      log.info({ approvalId, callId: r.callId }, "orphan approval record removed");
      return;
    }
    const outcome = await readStreamOutcome(bus, r.domain, r.callId);
    if (settledOnStream(outcome)) {
      log.warn({ approvalId, callId: r.callId }, "pending lock record of an approval the stream settled, record aligned with the stream");
      await approvals.update(alignedRecord(r, outcome), fresh.revision);
      return;
    }
    if (!(await approvals.update(expiredRecord(r, now), fresh.revision))) return;
    await inApprovalWaitSpan(requested, { outcome: "expired", at: now.toISOString() }, () => appendEvent(bus, approvalExpiredEvent(requested, { eventId: newId(), ts: now.toISOString() })));
    log.info({ approvalId, callId: r.callId }, "approval expired");
  };

  const repair = async (entry: JsonEntry<ApprovalRecord>) => {
    const r = entry.value;
    if (r.status === "pending") return;
    const requested = await readEvent(bus, r.domain, r.callId, "ApprovalRequested");
    if (requested?.data.approvalId === r.approvalId && !(await readEvent(bus, r.domain, r.callId, EVENT_OF_STATUS[r.status]))) {
      if (settledOnStream(await readStreamOutcome(bus, r.domain, r.callId))) {
        log.warn({ approvalId: r.approvalId, callId: r.callId, status: r.status }, "decision event not appended: the stream settled the approval otherwise");
      } else {
        await appendMissing(requested, r);
        log.warn({ approvalId: r.approvalId, callId: r.callId, status: r.status }, "missing decision event appended");
      }
    }
    approvals.settle(r.approvalId, entry.revision);
  };

  const appendMissing = async (requested: ApprovalRequested, r: ApprovalRecord) => {
    if (r.status === "expired") {
      await appendEvent(bus, approvalExpiredEvent(requested, { eventId: newId(), ts: r.expiredAt ?? new Date().toISOString() }));
    } else if (r.decision !== undefined) {
      await appendDecision(bus, requested, r.decision);
    }
  };

  const sweepOnce = async (now = new Date()) => {
    for (const entry of approvals.open()) {
      const r = entry.value;
      try {
        if (r.status === "pending") {
          if (isOverdue(r, now)) await expire(r.approvalId, now);
          continue;
        }
        const settledAt = Date.parse(r.decision?.decidedAt ?? r.expiredAt ?? r.requestedAt);
        if (now.getTime() - settledAt >= repairGraceMs) await repair(entry);
      } catch (err) {
        log.error({ err, approvalId: r.approvalId }, "sweep of an approval failed");
      }
    }
  };

  let running: Promise<void> | undefined;
  const timer = setInterval(() => {
    running ??= sweepOnce().finally(() => (running = undefined));
  }, deps.intervalMs);
  return {
    sweepOnce,
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}

/** The lock record as the stream's terminal event says the approval ended. */
function alignedRecord(r: ApprovalRecord, o: StreamOutcome): ApprovalRecord {
  if (o.cancelled !== undefined) {
    // the call was cancelled: nobody may decide its approval any more
    const c = o.cancelled;
    return decidedRecord(r, { decision: "deny", approver: c.data.by, decidedAt: c.ts, reason: `the call was cancelled by ${c.data.by}` });
  }
  if (o.denied !== undefined) {
    const d = o.denied;
    return decidedRecord(r, { decision: "deny", approver: d.data.approver, decidedAt: d.ts, reason: d.data.reason });
  }
  if (o.granted !== undefined) {
    const g = o.granted;
    return decidedRecord(r, { decision: "grant", approver: g.data.approver, decidedAt: g.data.grantedAt, grant: g.data });
  }
  return expiredRecord(r, new Date(o.expired?.ts ?? Date.now()));
}
