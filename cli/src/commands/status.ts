import type { Bus } from "@warden/bus";
import {
  BUCKET_APPROVALS,
  BUCKET_EXECUTORS,
  BUCKET_POLICY,
  BUCKET_TOOLS,
  parseToolName,
  STREAM_CALLS,
  STREAM_DLQ,
} from "@warden/contracts/subjects";
import { ToolRecordSchema } from "@warden/contracts/descriptor";
import { POLICY_DOCUMENT_KEY } from "@warden/contracts/policy";
import { ApprovalInboxRecordSchema } from "@warden/contracts/read-models";
import { lastCheckpoint } from "@warden/notary";
import { openCursor } from "@warden/projector";
import { discoverServices } from "@warden/service-kit";
import type { STATUS_OPTIONS } from "../command-list.js";
import { withBus } from "../connect.js";
import { statusText, type StatusReport } from "../domain/status-text.js";
import { EXIT_OK } from "../errors.js";
import type { Command } from "../io.js";
import { emit } from "../output.js";

/** `warden status`: what runs and how far behind it is, read from the bus (read-only). */
export const statusCommand: Command<typeof STATUS_OPTIONS> = async ({ values }, io) => {
  const report = await withBus(io, { name: values.as, creds: values.creds, fallback: "admin" }, (bus) => readStatus(bus));
  emit(io, values.json ?? false, report, () => statusText(report));
  return EXIT_OK;
};

async function readStatus(bus: Bus): Promise<StatusReport> {
  const [services, executors, consumers, dlq, stream, approvals, policy, history] = await Promise.all([
    discoverServices(bus),
    executorsByDomain(bus),
    consumerLag(bus),
    bus.jsm.streams.info(STREAM_DLQ).then((i) => ({ messages: i.state.messages, bytes: i.state.bytes })),
    bus.jsm.streams.info(STREAM_CALLS).then((i) => ({
      name: STREAM_CALLS,
      messages: i.state.messages,
      bytes: i.state.bytes,
      firstTs: i.state.messages === 0 ? null : i.state.first_ts,
      lastTs: i.state.messages === 0 ? null : i.state.last_ts,
      maxAgeSeconds: Math.round(i.config.max_age / 1e9),
      replicas: i.config.num_replicas,
    })),
    pendingApprovals(bus),
    policyVersion(bus),
    historyPosition(bus),
  ]);
  const problems: string[] = [];
  for (const e of executors) if (!e.alive) problems.push(`domain ${e.domain} has ${e.enabledTools} enabled tool(s) and no live executor: its calls are refused UNAVAILABLE`);
  for (const core of ["warden-registry", "warden-policy", "warden-approver", "warden-projector", "warden-notary"]) {
    if (!services.some((s) => s.name === core)) problems.push(`no ${core} answered discovery: calls that need it wait`);
  }
  for (const c of consumers) if (c.pending > 1_000) problems.push(`durable ${c.durable} is ${c.pending} messages behind`);
  const projectorLag = history.lastSeq - history.projectorCursor;
  // the calls go on without either: what falls behind is what people read (inbox, trace) and what seals it
  if (projectorLag > STALE_EVENTS) problems.push(`the projector is ${projectorLag} events behind the stream (read models at seq ${history.projectorCursor} of ${history.lastSeq}): calls are still decided, but the inbox, traces and budgets' views are stale`);
  const unsealed = history.lastSeq - (history.sealedThrough ?? 0);
  const sealedAgo = history.lastCheckpointAt === null ? Infinity : Date.now() - Date.parse(history.lastCheckpointAt);
  if (unsealed > 0 && sealedAgo > STALE_SEAL_MS) problems.push(`the notary has sealed nothing for ${history.lastCheckpointAt === null ? "ever" : `${Math.round(sealedAgo / 1000)} s`}: ${unsealed} events are unsealed (calls are still decided; audit --verify reports them unsealed)`);
  if (dlq.messages > 0) problems.push(`${dlq.messages} dead letter(s) in ${STREAM_DLQ} (see docs/reliability.md: what a letter holds and how to replay it)`);
  return { at: new Date().toISOString(), services, executors, consumers, dlq, stream, approvals, policy, history, problems };
}

/** More events than this behind: the projector is not just busy. */
const STALE_EVENTS = 100;
/** The notary seals every couple of seconds while there is something new. */
const STALE_SEAL_MS = 30_000;

async function historyPosition(bus: Bus): Promise<StatusReport["history"]> {
  const [info, cursor, last] = await Promise.all([bus.jsm.streams.info(STREAM_CALLS), openCursor(bus).then((c) => c.read()), lastCheckpoint(bus).catch(() => undefined)]);
  const s = last?.checkpoint.statement;
  return { lastSeq: info.state.last_seq, projectorCursor: cursor, sealedThrough: s?.toSeq ?? null, lastCheckpointAt: s?.sealedAt ?? null };
}

/** Every domain with enabled tools or a heartbeat: alive while its heartbeat key has not expired. */
async function executorsByDomain(bus: Bus): Promise<StatusReport["executors"]> {
  const tools = await bus.kvm.open(BUCKET_TOOLS);
  const enabled = new Map<string, number>();
  for await (const key of await tools.keys()) {
    const e = await tools.get(key);
    const parsed = e === null || e.operation !== "PUT" ? undefined : ToolRecordSchema.safeParse(e.json());
    if (!parsed?.success || parsed.data.status !== "enabled") continue;
    const domain = parseToolName(parsed.data.descriptor.name)?.domain;
    if (domain !== undefined) enabled.set(domain, (enabled.get(domain) ?? 0) + 1);
  }
  const beats = await bus.kvm.open(BUCKET_EXECUTORS);
  const alive = new Map<string, { executorId?: string; at?: string }>();
  for await (const domain of await beats.keys()) {
    const e = await beats.get(domain);
    if (e === null || e.operation !== "PUT") continue;
    let beat: { executorId?: unknown; at?: unknown } = {};
    try {
      beat = e.json();
    } catch {
      // an unreadable heartbeat still says someone is alive
    }
    alive.set(domain, { ...(typeof beat.executorId === "string" ? { executorId: beat.executorId } : {}), ...(typeof beat.at === "string" ? { at: beat.at } : {}) });
  }
  const domains = [...new Set([...enabled.keys(), ...alive.keys()])].sort();
  return domains.map((domain) => ({ domain, enabledTools: enabled.get(domain) ?? 0, alive: alive.has(domain), ...alive.get(domain) }));
}

async function consumerLag(bus: Bus): Promise<StatusReport["consumers"]> {
  const out: StatusReport["consumers"][number][] = [];
  for await (const c of bus.jsm.consumers.list(STREAM_CALLS)) {
    // ordered readers (no durable name) come and go: only the stages' durables are the pipeline
    if (c.config.durable_name === undefined) continue;
    out.push({ durable: c.name, pending: c.num_pending, ackPending: c.num_ack_pending, redelivered: c.num_redelivered, waiting: c.num_waiting });
  }
  return out.sort((a, b) => a.durable.localeCompare(b.durable));
}

/** The projected approvals still waiting for a person, and how long the oldest has waited. */
async function pendingApprovals(bus: Bus): Promise<StatusReport["approvals"]> {
  const kv = await bus.kvm.open(BUCKET_APPROVALS);
  const now = Date.now();
  let pending = 0;
  let oldest: number | undefined;
  for await (const key of await kv.keys()) {
    const e = await kv.get(key);
    const parsed = e === null || e.operation !== "PUT" ? undefined : ApprovalInboxRecordSchema.safeParse(e.json());
    if (!parsed?.success || parsed.data.status !== "pending" || Date.parse(parsed.data.expiresAt) <= now) continue;
    pending++;
    const at = Date.parse(parsed.data.requestedAt);
    oldest = oldest === undefined ? at : Math.min(oldest, at);
  }
  return { pending, ...(oldest === undefined ? {} : { oldestWaitingSeconds: Math.round((now - oldest) / 1000) }) };
}

async function policyVersion(bus: Bus): Promise<StatusReport["policy"]> {
  const kv = await bus.kvm.open(BUCKET_POLICY);
  const e = await kv.get(POLICY_DOCUMENT_KEY);
  if (e === null || e.operation !== "PUT") return { version: null, note: "no policy document stored: the built-in defaults decide" };
  try {
    const doc = e.json<{ version?: unknown }>();
    return { version: typeof doc.version === "string" ? doc.version : null, revision: e.revision };
  } catch {
    return { version: null, note: "the stored policy document is not JSON: services keep the last good one" };
  }
}
