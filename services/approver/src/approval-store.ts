import { type Bus, encodeJson, entryToJson, isRevisionConflict, type JsonEntry, kvGetJson, kvUpdateJson, type Logger } from "@warden/bus";
import { BUCKET_APPROVAL_LOCKS } from "@warden/contracts/subjects";
import { ApprovalRecordSchema, type ApprovalRecord } from "./domain/approval-record.js";
import type { KV } from "@warden/bus";

/**
 * The approver's decision locks in `warden_approval_locks` (one per approvalId); every change of
 * status is a compare-and-set, which makes a decision single-use. The inbox people read is the
 * projected one (`warden_approvals`).
 */
export interface ApprovalStore {
  get(approvalId: string): Promise<JsonEntry<ApprovalRecord> | undefined>;
  /** False when the key exists already. */
  create(record: ApprovalRecord): Promise<boolean>;
  /** False when the record changed since `revision` (someone decided first). */
  update(record: ApprovalRecord, revision: number): Promise<boolean>;
  /** Removes a record that never reached the stream (an orphan), only if unchanged since `revision`. */
  remove(approvalId: string, revision?: number): Promise<void>;
  /** Records that need attention: pending ones, and decided ones until settle() says their event is there. */
  open(): readonly JsonEntry<ApprovalRecord>[];
  settle(approvalId: string, revision: number): void;
  /**
   * The approvals `person` granted (alone or in a quorum) or denied, newest decision first, at
   * most DECIDED_KEPT each: kept from the records as the watch brings them, restarts included.
   */
  decidedBy(person: string): readonly ApprovalRecord[];
  stop(): void;
}

/** Decided records kept per person for the inbox's Decided list. */
export const DECIDED_KEPT = 50;

/** Who took part in a record's decision: the decider, and every vote towards its quorum. */
function decidersOf(r: ApprovalRecord): string[] {
  if (r.decision === undefined) return [];
  return [...new Set([r.decision.approver, ...(r.votes ?? []).map((v) => v.approver)])];
}

export async function openApprovalStore(bus: Bus, log: Logger): Promise<ApprovalStore> {
  const kv: KV = await bus.kvm.open(BUCKET_APPROVAL_LOCKS);
  const open = new Map<string, JsonEntry<ApprovalRecord>>();
  const decided = new Map<string, ApprovalRecord[]>();
  const noteDecided = (r: ApprovalRecord) => {
    for (const person of decidersOf(r)) {
      const list = [r, ...(decided.get(person) ?? []).filter((x) => x.approvalId !== r.approvalId)];
      list.sort((a, b) => b.decision!.decidedAt.localeCompare(a.decision!.decidedAt));
      decided.set(person, list.slice(0, DECIDED_KEPT));
    }
  };
  let markReady!: () => void;
  const ready = new Promise<void>((r) => (markReady = r));
  const iter = await kv.watch();
  if ((await kv.status()).values === 0) markReady();
  void (async () => {
    for await (const e of iter) {
      const entry = e.operation === "PUT" ? entryToJson(e, ApprovalRecordSchema) : undefined;
      if (entry !== undefined) {
        open.set(e.key, entry);
        noteDecided(entry.value);
      } else {
        if (e.operation === "PUT") log.warn({ key: e.key }, "unreadable approval record ignored");
        open.delete(e.key);
      }
      // the last of the replayed values is flagged as an update
      if (e.isUpdate) markReady();
    }
  })();
  await ready;
  return {
    get: (approvalId) => kvGetJson(kv, approvalId, ApprovalRecordSchema),
    async create(record) {
      let revision: number;
      try {
        revision = await kv.create(record.approvalId, encodeJson(record));
      } catch (err) {
        if (isRevisionConflict(err)) return false;
        throw err;
      }
      // held at once, not when the watch brings it back: the approval quota counts it from here
      if ((open.get(record.approvalId)?.revision ?? 0) < revision) open.set(record.approvalId, { key: record.approvalId, value: record, revision });
      return true;
    },
    update: (record, revision) => kvUpdateJson(kv, record.approvalId, record, revision),
    async remove(approvalId, revision) {
      try {
        await kv.delete(approvalId, revision === undefined ? undefined : { previousSeq: revision });
      } catch (err) {
        if (!isRevisionConflict(err)) throw err;
      }
    },
    open: () => [...open.values()],
    decidedBy: (person) => decided.get(person) ?? [],
    settle(approvalId, revision) {
      if (open.get(approvalId)?.revision === revision) open.delete(approvalId);
    },
    stop: () => iter.stop(),
  };
}
