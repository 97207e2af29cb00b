import { decodeJson, followCallStream, getNewestMessage, type Bus, type Logger } from "@warden/bus";
import { validateEventJson, type ApprovalRequested } from "@warden/contracts/events";
import { stageFilterSubject, STREAM_CALLS, subjectOfEvent } from "@warden/contracts/subjects";
import { argsHash } from "@warden/contracts/json";
import { isOverdue } from "./domain/approval-record.js";

/** Reads the stream for new requests this often even when none was heard of. */
const POLL_MS = 1_000;
const FIRST_PRUNE_AT = 1_024;
const REQUESTED_SUBJECTS = stageFilterSubject("ApprovalRequested");

/**
 * The approval requests as the stream holds them: direct gets read every
 * `warden.call.*.*.ApprovalRequested` (immutable, written only by the approver role) and keeps the
 * ones that are not yet overdue. Nothing here comes from a KV bucket. A request whose args do not
 * hash to its argsHash is left out and logged.
 */
export interface RequestedApprovals {
  /**
   * The requests not yet overdue, once every ApprovalRequested that was on the stream when asked
   * has been read (read-your-writes for a caller that has just seen its request). Waits at most
   * `maxWaitMs`; `caughtUp` says whether it got there.
   */
  open(now: Date): Promise<{ requests: ApprovalRequested[]; caughtUp: boolean }>;
  /** The stream sequence a request was read at (what durable deliveries count from). */
  seqOf(requested: ApprovalRequested): number | undefined;
  /** Resolves when the next approval request is read from the stream, or after `ms`. */
  arrival(ms: number): Promise<void>;
  /** Leaves out a request from now on (its approval is settled on the stream). */
  forget(requested: ApprovalRequested): void;
  stop(): Promise<void>;
}

export async function openRequestedApprovals(bus: Bus, log: Logger, maxWaitMs: number): Promise<RequestedApprovals> {
  const byCall = new Map<string, ApprovalRequested>();
  const keyOf = (r: ApprovalRequested) => `${r.domain}.${r.callId}`;
  let pruneAt = FIRST_PRUNE_AT;
  const seqs = new WeakMap<ApprovalRequested, number>();
  const waiters = new Set<() => void>();

  const prune = (now: Date) => {
    for (const [k, r] of byCall) if (isOverdue(r.data, now)) byCall.delete(k);
  };
  const take = (seq: number, subject: string, data: Uint8Array) => {
    const decoded = decodeJson(data);
    const parsed = decoded.ok ? validateEventJson(decoded.value) : undefined;
    if (!parsed?.ok || parsed.value.type !== "ApprovalRequested") {
      log.warn({ seq, subject }, "unreadable approval request on the stream ignored");
      return;
    }
    const requested = parsed.value;
    if (subjectOfEvent(requested) !== subject) {
      log.warn({ seq, subject, callId: requested.callId }, "approval request on another call's subject ignored");
      return;
    }
    if (argsHash(requested.data.args) !== requested.data.argsHash) {
      log.warn({ seq, callId: requested.callId, approvalId: requested.data.approvalId }, "approval request whose args do not hash to its argsHash left out");
      return;
    }
    const now = new Date();
    if (isOverdue(requested.data, now)) return;
    byCall.set(keyOf(requested), requested);
    seqs.set(requested, seq);
    for (const wake of waiters) wake();
    if (byCall.size >= pruneAt) {
      prune(now);
      pruneAt = Math.max(FIRST_PRUNE_AT, byCall.size * 2);
    }
  };

  // direct gets, woken by the requests the approver hears on the bus (it wrote them; what is read
  // is what the stream holds): reading needs no consumer on the call stream
  const follower = followCallStream(bus, { filter: REQUESTED_SUBJECTS, pollMs: POLL_MS, wakeOn: REQUESTED_SUBJECTS, log }, (m) => {
    try {
      take(m.seq, m.subject, m.data);
    } catch (err) {
      log.error({ err, seq: m.seq }, "approval request could not be read");
    }
  });

  /** The stream sequence of the newest ApprovalRequested, 0 when there is none. */
  const lastRequestSeq = async () => {
    const last = await getNewestMessage(bus, STREAM_CALLS, { last_by_subj: REQUESTED_SUBJECTS });
    return last?.seq ?? 0;
  };

  return {
    async open(now) {
      const target = await lastRequestSeq();
      let timer: NodeJS.Timeout | undefined;
      const gaveUp = new Promise<void>((r) => (timer = setTimeout(r, maxWaitMs)));
      await Promise.race([follower.catchUp().catch((err: unknown) => log.warn({ err }, "approval requests could not be read")), gaveUp]);
      clearTimeout(timer);
      const caughtUp = follower.readSeq() >= target;
      if (!caughtUp) log.warn({ target, readSeq: follower.readSeq() }, "approval requests on the stream not all read yet");
      prune(now);
      return { requests: [...byCall.values()], caughtUp };
    },
    seqOf: (requested) => seqs.get(requested),
    arrival(ms) {
      return new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          waiters.delete(done);
          resolve();
        };
        const timer = setTimeout(done, ms);
        waiters.add(done);
      });
    },
    forget(requested) {
      if (byCall.get(keyOf(requested))?.eventId === requested.eventId) byCall.delete(keyOf(requested));
    },
    async stop() {
      for (const wake of waiters) wake();
      await follower.stop();
    },
  };
}
