import { entryToJson, type Bus, type Logger } from "@warden/bus";
import {
  ApprovalInboxRecordSchema,
  BUCKET_APPROVALS,
  BUCKET_PROJECTOR,
  PROJECTOR_CURSOR_KEY,
  ProjectorCursorSchema,
  STREAM_CALLS,
  type ApprovalInboxRecord,
} from "@warden/contracts";
import type { KV } from "./kv.js";

const POLL_MS = 10;

/** The approval inbox as the projector keeps it in `warden_approvals`: open approvals only. */
export interface ProjectedInbox {
  /**
   * The pending approvals, once the projection holds every event that was on the stream when
   * asked (read-your-writes for a caller that has just seen its ApprovalRequested). Waits at most
   * `maxWaitMs`; `caughtUp` says whether it got there.
   */
  pending(): Promise<{ records: ApprovalInboxRecord[]; caughtUp: boolean }>;
  stop(): void;
}

export async function openProjectedInbox(bus: Bus, log: Logger, maxWaitMs: number): Promise<ProjectedInbox> {
  const inboxKv: KV = await bus.kvm.open(BUCKET_APPROVALS);
  const projectorKv: KV = await bus.kvm.open(BUCKET_PROJECTOR);
  const open = new Map<string, ApprovalInboxRecord>();
  // the bucket's revision the watch has applied: the read side of the wait
  let seenRevision = 0;
  const iter = await inboxKv.watch();
  void (async () => {
    for await (const e of iter) {
      seenRevision = Math.max(seenRevision, e.revision);
      const record = e.operation === "PUT" ? entryToJson(e, ApprovalInboxRecordSchema)?.value : undefined;
      if (record?.status === "pending") open.set(e.key, record);
      else open.delete(e.key);
    }
  })();

  const cursor = async () => {
    const e = await projectorKv.get(PROJECTOR_CURSOR_KEY);
    return e === null ? 0 : (entryToJson(e, ProjectorCursorSchema)?.value.seq ?? 0);
  };
  const until = async (done: () => Promise<boolean> | boolean, deadline: number) => {
    while (!(await done())) {
      if (Date.now() >= deadline) return false;
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
    return true;
  };

  return {
    async pending() {
      const deadline = Date.now() + maxWaitMs;
      const target = (await bus.jsm.streams.info(STREAM_CALLS)).state.last_seq;
      const projected = await until(async () => (await cursor()) >= target, deadline);
      const written = (await inboxKv.status()).streamInfo.state.last_seq;
      const watched = await until(() => seenRevision >= written, deadline);
      if (!projected) log.warn({ target, cursor: await cursor() }, "approval inbox projection is behind the stream");
      return { records: [...open.values()], caughtUp: projected && watched };
    },
    stop: () => iter.stop(),
  };
}
