import { AckPolicy, DiscardPolicy, RetentionPolicy, StorageType, type StreamConfig } from "@nats-io/jetstream";
import {
  BUCKET_APPROVAL_LOCKS,
  BUCKET_APPROVER_CURSORS,
  BUCKET_EXECUTORS,
  EXECUTOR_HEARTBEAT_TTL_S,
  BUCKET_APPROVALS,
  BUCKET_BUDGETS,
  BUCKET_CALLS,
  BUCKET_POLICY,
  BUCKET_PROJECTOR,
  BUCKET_SKILLS,
  BUCKET_TOOLS,
  CALLS_SUBJECTS,
  DLQ_SUBJECTS,
  OBJECT_STORE_ARTIFACTS,
  STREAM_CALLS,
  STREAM_DLQ,
  STREAM_NOTARY,
  NOTARY_CHECKPOINT_SUBJECT,
  POLICY_CHANGED_SUBJECTS,
  STREAM_POLICY_CHANGES,
} from "@warden/contracts/subjects";
import { DURABLE_PROJECTOR } from "@warden/contracts/permissions";
import type { Bus } from "./bus.js";
import type { BusConfig } from "./config.js";
import { isNotFound, isPermissionViolation, unlessNotFound } from "./nats-errors.js";

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

/** The topology is missing or unsafe; the message names the setting and what Warden needs. */
export class TopologyError extends Error {
  override readonly name = "TopologyError";
}

/**
 * Creates what is missing (only the admin identity may: a service gets a TopologyError naming
 * who must provision it) and refuses to go on over a WARDEN_CALLS that lets history be changed.
 * Never changes an existing stream: that is an operator's decision.
 */
export async function ensureTopology(bus: Bus): Promise<void> {
  const replicas = bus.config.WARDEN_REPLICAS;
  const calls = callsStreamConfig(bus);
  await ensureStream(bus, calls);
  await ensureStream(bus, {
    name: STREAM_DLQ,
    subjects: [DLQ_SUBJECTS],
    storage: StorageType.File,
    num_replicas: replicas,
    deny_delete: true,
    max_age: 30 * 24 * 3600 * SECOND_NS,
  });
  // the notary's checkpoints: never erased, as little as the history they seal
  await ensureStream(bus, {
    name: STREAM_NOTARY,
    subjects: [NOTARY_CHECKPOINT_SUBJECT],
    storage: StorageType.File,
    num_replicas: replicas,
    deny_delete: true,
    deny_purge: true,
    allow_direct: true,
  });
  // who changed the policy document, and to what: kept for good, like the history it governs
  await ensureStream(bus, {
    name: STREAM_POLICY_CHANGES,
    subjects: [POLICY_CHANGED_SUBJECTS],
    storage: StorageType.File,
    num_replicas: replicas,
    deny_delete: true,
    deny_purge: true,
    allow_direct: true,
  });
  for (const bucket of [BUCKET_TOOLS, BUCKET_POLICY, BUCKET_SKILLS]) {
    await ensureMissing(bus, `KV_${bucket}`, () => bus.kvm.create(bucket, { replicas, history: 10, storage: StorageType.File }));
  }
  for (const bucket of [BUCKET_CALLS, BUCKET_APPROVALS, BUCKET_BUDGETS, BUCKET_APPROVAL_LOCKS, BUCKET_PROJECTOR, BUCKET_APPROVER_CURSORS]) {
    await ensureMissing(bus, `KV_${bucket}`, () => bus.kvm.create(bucket, { replicas, history: 1, storage: StorageType.File }));
  }
  // heartbeats live as long as they count: the server drops a domain whose executors all stopped.
  // On file: a single server restarted does not bring a memory stream back, and every heartbeat
  // after it failed (chaos, nats-server kill -9); a bucket made in memory before is made again.
  const heartbeats = await unlessNotFound(bus.jsm.streams.info(`KV_${BUCKET_EXECUTORS}`));
  if (heartbeats?.config.storage === StorageType.Memory) {
    // only the admin may: a service starting on such a bucket leaves it to the next provisioning
    await bus.jsm.streams.delete(`KV_${BUCKET_EXECUTORS}`).catch((err: unknown) => {
      if (!isPermissionViolation(err)) throw err;
    });
  }
  await ensureMissing(bus, `KV_${BUCKET_EXECUTORS}`, () =>
    bus.kvm.create(BUCKET_EXECUTORS, { replicas, history: 1, storage: StorageType.File, ttl: EXECUTOR_HEARTBEAT_TTL_S * 1_000 }),
  );
  await remakeProjectorDurable(bus);
  await ensureMissing(bus, `OBJ_${OBJECT_STORE_ARTIFACTS}`, () => bus.objm.create(OBJECT_STORE_ARTIFACTS, { replicas, storage: StorageType.File }));
  const info = await bus.jsm.streams.info(STREAM_CALLS);
  const problems = callsStreamProblems(info.config, bus.config);
  if (problems.length > 0) {
    throw new TopologyError(`refusing to run on ${STREAM_CALLS}: ${problems.join("; ")}. Fix the stream (as the admin) or the configuration.`);
  }
}

/**
 * The projector's durable made before it acked once per run (AckPolicy.Explicit, one ack per
 * event) is deleted: the projector makes it again from its cursor, where every model stands, so
 * nothing is skipped or applied twice. A consumer's ack policy cannot be changed in place, and
 * only the admin may delete one (a service running this leaves it as it is).
 */
async function remakeProjectorDurable(bus: Bus): Promise<void> {
  const info = await unlessNotFound(bus.jsm.consumers.info(STREAM_CALLS, DURABLE_PROJECTOR));
  if (info === undefined || info.config.ack_policy !== AckPolicy.Explicit) return;
  await bus.jsm.consumers.delete(STREAM_CALLS, DURABLE_PROJECTOR).catch((err: unknown) => {
    if (!isPermissionViolation(err) && !isNotFound(err)) throw err;
  });
}

/** What makes a WARDEN_CALLS unsafe for append-once history; empty when it is fine. */
export function callsStreamProblems(c: StreamConfig, config: BusConfig): string[] {
  const problems: string[] = [];
  if (c.max_msgs_per_subject !== 1) problems.push(`max_msgs_per_subject is ${c.max_msgs_per_subject}, must be 1 (each event written once per call)`);
  if (c.discard !== DiscardPolicy.New) problems.push(`discard is ${c.discard}, must be new`);
  if (c.discard_new_per_subject !== true) problems.push("discard_new_per_subject is off, must be on");
  if (c.deny_delete !== true) problems.push("deny_delete is off, must be on (no event may be erased)");
  if (c.deny_purge !== true) problems.push("deny_purge is off, must be on (no history may be purged)");
  if (c.max_msgs !== undefined && c.max_msgs !== -1) problems.push(`max_msgs is ${c.max_msgs}, must be unlimited (-1)`);
  const wantAgeNs = config.WARDEN_STREAM_MAX_AGE_S * SECOND_NS;
  if (c.max_age !== 0 && (wantAgeNs === 0 || c.max_age < wantAgeNs)) {
    problems.push(`max_age is ${c.max_age / SECOND_NS} s, shorter than the configured retention (WARDEN_STREAM_MAX_AGE_S=${config.WARDEN_STREAM_MAX_AGE_S}, 0 keeps everything)`);
  }
  const wantBytes = config.WARDEN_STREAM_MAX_BYTES;
  if (c.max_bytes !== -1 && (wantBytes === -1 || c.max_bytes < wantBytes)) {
    problems.push(`max_bytes is ${c.max_bytes}, smaller than the configured WARDEN_STREAM_MAX_BYTES=${wantBytes} (-1 is unlimited)`);
  }
  return problems;
}

async function ensureMissing(bus: Bus, stream: string, create: () => Promise<unknown>): Promise<void> {
  if ((await unlessNotFound(bus.jsm.streams.info(stream))) !== undefined) return;
  await create().catch(async (err: unknown) => {
    if ((await unlessNotFound(bus.jsm.streams.info(stream))) !== undefined) return;
    if (isPermissionViolation(err)) {
      throw new TopologyError(`${stream} does not exist and this identity may not create it: start Warden with \`warden up\` or provision the topology as the admin`, { cause: err });
    }
    throw err;
  });
}

async function ensureStream(bus: Bus, config: Partial<StreamConfig> & { name: string }): Promise<void> {
  await ensureMissing(bus, config.name, () => bus.jsm.streams.add(config));
}
