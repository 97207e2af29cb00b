import { DiscardPolicy, RetentionPolicy, StorageType, type StreamConfig } from "@nats-io/jetstream";
import {
  BUCKET_APPROVAL_LOCKS,
  BUCKET_APPROVALS,
  BUCKET_BUDGETS,
  BUCKET_CALLS,
  BUCKET_POLICY,
  BUCKET_PROJECTOR,
  BUCKET_TOOLS,
  CALLS_SUBJECTS,
  DLQ_SUBJECTS,
  OBJECT_STORE_ARTIFACTS,
  STREAM_CALLS,
  STREAM_DLQ,
} from "@warden/contracts";
import type { Bus } from "./bus.js";

const SECOND_NS = 1_000_000_000;

export function callsStreamConfig(bus: Bus): Partial<StreamConfig> & { name: string } {
  return {
    name: STREAM_CALLS,
    subjects: [CALLS_SUBJECTS],
    storage: StorageType.File,
    retention: RetentionPolicy.Limits,
    num_replicas: bus.config.WARDEN_REPLICAS,
    // One message per subject, ever: each event type is written once per call and never erased.
    max_msgs_per_subject: 1,
    discard: DiscardPolicy.New,
    discard_new_per_subject: true,
    deny_delete: true,
    deny_purge: true,
    allow_direct: true,
    max_age: bus.config.WARDEN_STREAM_MAX_AGE_S * SECOND_NS,
    max_bytes: bus.config.WARDEN_STREAM_MAX_BYTES,
    duplicate_window: 120 * SECOND_NS,
  };
}

/** Creates streams, KV buckets and the object store if missing; safe to call from every service. */
export async function ensureTopology(bus: Bus): Promise<void> {
  const replicas = bus.config.WARDEN_REPLICAS;
  await ensureStream(bus, callsStreamConfig(bus));
  await ensureStream(bus, {
    name: STREAM_DLQ,
    subjects: [DLQ_SUBJECTS],
    storage: StorageType.File,
    num_replicas: replicas,
    deny_delete: true,
    max_age: 30 * 24 * 3600 * SECOND_NS,
  });
  for (const bucket of [BUCKET_TOOLS, BUCKET_POLICY]) {
    await bus.kvm.create(bucket, { replicas, history: 10, storage: StorageType.File });
  }
  for (const bucket of [BUCKET_CALLS, BUCKET_APPROVALS, BUCKET_BUDGETS, BUCKET_APPROVAL_LOCKS, BUCKET_PROJECTOR]) {
    await bus.kvm.create(bucket, { replicas, history: 1, storage: StorageType.File });
  }
  await bus.objm.create(OBJECT_STORE_ARTIFACTS, { replicas, storage: StorageType.File });
}

async function ensureStream(bus: Bus, config: Partial<StreamConfig> & { name: string }): Promise<void> {
  const existing = await bus.jsm.streams.info(config.name).catch(() => undefined);
  if (existing === undefined) {
    await bus.jsm.streams.add(config).catch(async (err: unknown) => {
      // another service created it between our info and add
      if ((await bus.jsm.streams.info(config.name).catch(() => undefined)) === undefined) throw err;
    });
    return;
  }
  const c = existing.config;
  const changed =
    c.max_age !== config.max_age ||
    (config.max_bytes !== undefined && c.max_bytes !== config.max_bytes);
  if (changed) {
    await bus.jsm.streams.update(config.name, { ...c, max_age: config.max_age ?? c.max_age, max_bytes: config.max_bytes ?? c.max_bytes });
  }
}
