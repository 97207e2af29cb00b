import { closeSync, openSync, readdirSync, readFileSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { decodeJson } from "@warden/bus";
import { ApprovalRecordSchema } from "@warden/approver";
import { BUCKET_APPROVAL_LOCKS, callEventSubject, STREAM_CALLS } from "@warden/contracts/subjects";
import type { Deployment } from "./deployment.js";
import { startPatiently } from "./managed-process.js";
import type { Load } from "./load.js";
import type { StreamScan } from "./stream-scan.js";

/** One injected fault and when the system worked again (a call asked for after it succeeded). */
export interface Fault {
  readonly kind: string;
  readonly target: string;
  readonly at: number;
  recoveredAt?: number;
  /** For a leader kill: when the cluster reported a new WARDEN_CALLS leader (the server's own share of the outage). */
  electedAt?: number;
}

/** How long a fault may take to recover before it counts as "never" (and the scenario goes on). */
const RECOVERY_LIMIT_MS = 90_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Fills in each fault's recovery from what the agents saw (after the scenario, so a storm is not slowed). */
export async function measureRecoveries(load: Load, faults: readonly Fault[], limitMs = RECOVERY_LIMIT_MS): Promise<void> {
  for (const f of faults) {
    if (f.recoveredAt !== undefined) continue;
    const t = await load.firstSuccessAfter(f.at, Math.max(0, f.at + limitMs - Date.now()));
    if (t !== undefined) f.recoveredAt = t;
  }
}

/**
 * SIGKILL of every service in turn (core services and each executor copy, in a shuffled round),
 * each started again at once as a supervisor would, `gapMs` apart, under load.
 */
export async function killStorm(d: Deployment, o: { kills: number; gapMs: readonly [number, number] }): Promise<Fault[]> {
  const faults: Fault[] = [];
  let round: string[] = [];
  for (let i = 0; i < o.kills; i++) {
    if (round.length === 0) round = shuffle(d.services.map((s) => s.name));
    const name = round.pop()!;
    const s = d.service(name);
    faults.push({ kind: "SIGKILL", target: name, at: Date.now() });
    d.note(`SIGKILL ${name}`);
    await s.signal("SIGKILL");
    await startPatiently(s);
    await sleep(o.gapMs[0] + Math.random() * (o.gapMs[1] - o.gapMs[0]));
  }
  return faults;
}

/**
 * Freezes an executor copy (SIGSTOP) while it is inside a run, leaves it frozen until the other
 * copy has given up on its claim (OutcomeUnknown), then resumes it (SIGCONT): the frozen run's
 * late result must not become a second ending.
 */
export async function freezeExecutorMidRun(
  d: Deployment,
  scan: StreamScan,
  o: { executor: string; executorId: string; rounds: number; frozenLimitMs: number },
): Promise<Fault[]> {
  const s = d.service(o.executor);
  const faults: Fault[] = [];
  for (let round = 0; round < o.rounds; round++) {
    const seen = marksOf(d.marksFile, o.executorId).size;
    const callId = await waitFor(() => [...marksOf(d.marksFile, o.executorId)].at(seen), 30_000);
    if (callId === undefined) throw new Error(`${o.executor} started no run within 30 s`);
    await s.signal("SIGSTOP");
    faults.push({ kind: "SIGSTOP", target: o.executor, at: Date.now() });
    d.note(`SIGSTOP ${o.executor} running ${callId}`);
    // frozen until the call it was running has an ending written by someone else (or a limit)
    await waitFor(async () => {
      await scan.advance();
      return (scan.calls.get(callId)?.terminals.length ?? 0) > 0 ? true : undefined;
    }, o.frozenLimitMs);
    await s.signal("SIGCONT");
    d.note(`SIGCONT ${o.executor}`);
    await sleep(1_000);
  }
  return faults;
}

/** What {@link killApproverMidDecision} did: its faults, and how often the kill fell inside the window. */
export interface MidDecisionKills {
  readonly faults: Fault[];
  /** Rounds in which the signed grant was in the lock record but not yet on the stream when the approver died. */
  readonly inWindow: number;
}

/**
 * Kills the approver between signing a grant and appending it: the admin watches the approval
 * lock records (as any subscriber with the rights could), freezes the approver (SIGSTOP) in the
 * same turn as the server stores a `granted` record, then SIGKILLs it and starts it again. The
 * restarted copy must append the grant the record holds, once; the person, told UNAVAILABLE, is
 * told ALREADY_DECIDED when they ask again.
 */
export async function killApproverMidDecision(d: Deployment, o: { rounds: number; gapMs: readonly [number, number] }): Promise<MidDecisionKills> {
  const s = d.service("approver");
  const faults: Fault[] = [];
  let inWindow = 0;
  for (let round = 0; round < o.rounds; round++) {
    let frozenOn: { callId: string; domain: string } | undefined;
    const sub = d.admin.nc.subscribe(`$KV.${BUCKET_APPROVAL_LOCKS}.>`, {
      callback: (_err, m) => {
        if (frozenOn !== undefined) return;
        const decoded = decodeJson(m.data);
        const record = decoded.ok ? ApprovalRecordSchema.safeParse(decoded.value).data : undefined;
        if (record?.status !== "granted") return;
        frozenOn = { callId: record.callId, domain: record.domain };
        // synchronously, in the turn the record arrived: before the approver's append
        void s.signal("SIGSTOP");
      },
    });
    await d.admin.nc.flush();
    const hit = await waitFor(() => frozenOn, 30_000);
    sub.unsubscribe();
    if (hit === undefined) throw new Error("the approver wrote no granted record within 30 s");
    faults.push({ kind: "SIGSTOP+SIGKILL after the grant's record", target: "approver", at: Date.now() });
    const subject = callEventSubject(hit.domain, hit.callId, "ApprovalGranted");
    const stored = (await d.admin.jsm.streams.info(STREAM_CALLS, { subjects_filter: subject })).state.subjects?.[subject] ?? 0;
    if (stored === 0) inWindow++;
    d.note(`SIGSTOP approver on the granted record of ${hit.callId} (grant ${stored === 0 ? "not yet" : "already"} on the stream), then SIGKILL`);
    await s.signal("SIGKILL");
    await startPatiently(s);
    await sleep(o.gapMs[0] + Math.random() * (o.gapMs[1] - o.gapMs[0]));
  }
  return { faults, inWindow };
}

/** kill -9 of every nats-server node at once; started again after `outageMs` on the same store. */
export async function restartNats(d: Deployment, load: Load, o: { rounds: number; outageMs: number }): Promise<Fault[]> {
  const faults: Fault[] = [];
  for (let round = 0; round < o.rounds; round++) {
    const f: Fault = { kind: "nats kill -9", target: "nats-server", at: Date.now() };
    faults.push(f);
    d.note("kill -9 nats-server");
    await Promise.all(d.nats.nodes.map((n) => n.process.signal("SIGKILL")));
    await sleep(o.outageMs);
    await Promise.all(d.nats.nodes.map((n) => n.process.start()));
    d.note("nats-server started again");
    const t = await load.firstSuccessAfter(f.at, RECOVERY_LIMIT_MS);
    if (t !== undefined) f.recoveredAt = t;
    await load.waitForSuccesses(5, RECOVERY_LIMIT_MS);
  }
  return faults;
}

/**
 * kill -9 of a single server whose disk is then lost: it starts again on an empty store, and the
 * admin provisions streams and policy again as `warden up` would. Everything stored before is gone;
 * the scenario shows that Warden says so (audit) and that calls flow again.
 */
export async function restartNatsWithoutStore(d: Deployment, load: Load): Promise<Fault[]> {
  const f: Fault = { kind: "nats kill -9, store lost", target: "nats-server", at: Date.now() };
  d.note("kill -9 nats-server; its store is lost");
  await Promise.all(d.nats.nodes.map((n) => n.process.signal("SIGKILL")));
  for (const entry of readdirSync(d.home.storeDir)) rmSync(join(d.home.storeDir, entry), { recursive: true, force: true });
  await Promise.all(d.nats.nodes.map((n) => n.process.start()));
  await waitFor(async () => {
    try {
      await d.provision();
      return true;
    } catch {
      return undefined;
    }
  }, 30_000);
  d.note("nats-server started on an empty store and provisioned again");
  // nothing is restarted: the stages find their durables gone and create them again, and the
  // projector finds its cursor behind what it knew and projects the new stream from it
  const t = await load.firstSuccessAfter(f.at, RECOVERY_LIMIT_MS);
  if (t !== undefined) f.recoveredAt = t;
  await load.waitForSuccesses(5, RECOVERY_LIMIT_MS);
  return [f];
}

/**
 * On a 3-node cluster: kill -9 the node that leads WARDEN_CALLS, wait until calls flow again,
 * start it again and wait until every replica is current before the next round.
 */
export async function killStreamLeader(d: Deployment, load: Load, o: { rounds: number }): Promise<Fault[]> {
  const faults: Fault[] = [];
  for (let round = 0; round < o.rounds; round++) {
    const leader = (await d.admin.jsm.streams.info(STREAM_CALLS)).cluster?.leader;
    if (leader === undefined) throw new Error("WARDEN_CALLS has no cluster leader: is this a cluster?");
    const node = d.nats.node(leader);
    const f: Fault = { kind: "leader kill -9", target: leader, at: Date.now() };
    faults.push(f);
    d.note(`kill -9 stream leader ${leader}`);
    await node.process.signal("SIGKILL");
    // the election is nats-server's (its raft timeouts are not configurable in 2.9); what follows it is Warden's
    const electing = waitFor(async () => {
      const asked = d.admin.jsm.streams.info(STREAM_CALLS).catch(() => undefined);
      const now = (await Promise.race([asked, sleep(1_000).then(() => undefined)]))?.cluster?.leader;
      return now !== undefined && now !== leader ? Date.now() : undefined;
    }, RECOVERY_LIMIT_MS);
    const t = await load.firstSuccessAfter(f.at, RECOVERY_LIMIT_MS);
    const elected = await electing;
    if (t !== undefined) f.recoveredAt = t;
    if (elected !== undefined) f.electedAt = elected;
    d.note(`new leader after ${elected === undefined ? "never" : elected - f.at} ms, calls flow again after ${t === undefined ? "never" : t - f.at} ms; starting ${leader} again`);
    await node.process.start();
    await waitFor(async () => {
      const info = await d.admin.jsm.streams.info(STREAM_CALLS).catch(() => undefined);
      const replicas = info?.cluster?.replicas ?? [];
      return info?.cluster?.leader !== undefined && replicas.length === 2 && replicas.every((r) => r.current) ? true : undefined;
    }, 60_000);
    await load.waitForSuccesses(5, RECOVERY_LIMIT_MS);
  }
  return faults;
}

/** What happened while the store's disk was full. */
export interface DiskFullOutcome {
  readonly fault: Fault;
  /** Calls asked for while the disk was full, by what their agents were told. */
  readonly whileFull: Readonly<Record<string, number>>;
  /**
   * Why nats-server was restarted (as a supervisor's health check would): it answered nothing once
   * space returned (2.9.10 hangs), or it answered but stored nothing (2.15.1 keeps failing writes
   * with the disk's old error). Undefined: it stored again by itself.
   */
  readonly restarted?: "answers nothing" | "stores nothing";
}

/**
 * Another process fills the disk the server stores on (a filler file until ENOSPC), holds it full
 * for `holdMs` under load, then frees it. If within `answerMs` of the space returning the server
 * answers nothing, or no call has succeeded (a health check that probes a write), it is restarted
 * on the same store. Recovery counts from the space returning.
 */
export async function fillStoreDisk(d: Deployment, load: Load, o: { holdMs: number; answerMs: number }): Promise<DiskFullOutcome> {
  const filler = join(d.home.storeDir, "filler");
  const fullAt = Date.now();
  d.note("filling the store's disk");
  const fd = openSync(filler, "w");
  try {
    const chunk = Buffer.alloc(1024 * 1024, 1);
    for (;;) {
      try {
        writeSync(fd, chunk);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "ENOSPC") throw err;
        // the last bytes too: a smaller write may still fit
        if (chunk.length === 1) break;
        chunk.fill(1, 0);
        const half = chunk.subarray(0, Math.max(1, chunk.length >> 1));
        try {
          writeSync(fd, half);
        } catch {
          break;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
  await sleep(o.holdMs);
  rmSync(filler);
  const freedAt = Date.now();
  d.note("store's disk freed");
  const fault: Fault = { kind: "store disk full", target: "nats-server", at: freedAt };
  let restarted: DiskFullOutcome["restarted"];
  const answers = await waitFor(async () => ((await d.admin.jsm.streams.info(STREAM_CALLS).catch(() => undefined)) ? true : undefined), o.answerMs);
  const stores = answers === undefined ? undefined : await load.firstSuccessAfter(freedAt, Math.max(0, freedAt + o.answerMs - Date.now()));
  if (answers === undefined || stores === undefined) {
    restarted = answers === undefined ? "answers nothing" : "stores nothing";
    d.note(`nats-server ${restarted} ${o.answerMs} ms after the space returned; restarting it`);
    await Promise.all(d.nats.nodes.map((n) => n.process.signal("SIGKILL")));
    await Promise.all(d.nats.nodes.map((n) => n.process.start()));
  }
  const t = await load.firstSuccessAfter(freedAt, RECOVERY_LIMIT_MS);
  if (t !== undefined) fault.recoveredAt = t;
  await load.waitForSuccesses(5, RECOVERY_LIMIT_MS);
  const whileFull: Record<string, number> = {};
  for (const r of load.records) {
    if (r.requestedAt < fullAt || r.requestedAt > freedAt) continue;
    const what = r.status === undefined ? "still waiting" : `${r.status}${r.code === undefined ? "" : ` ${r.code}`}`;
    whileFull[what] = (whileFull[what] ?? 0) + 1;
  }
  return { fault, whileFull, ...(restarted === undefined ? {} : { restarted }) };
}

/**
 * On a 3-node cluster: kill -9 a node that follows WARDEN_CALLS, empty its store (a replaced disk)
 * and start it again: it must rejoin and catch up from the others. Resolves with the fault and how
 * long the node took until every replica was current again.
 */
export async function replaceFollowerDisk(d: Deployment, load: Load): Promise<{ fault: Fault; caughtUpMs: number | undefined; led: string[] }> {
  const info = await d.admin.jsm.streams.info(STREAM_CALLS);
  const follower = info.cluster?.replicas?.[0]?.name;
  if (follower === undefined) throw new Error("WARDEN_CALLS has no follower: is this a cluster?");
  const node = d.nats.node(follower);
  // a follower of the call stream may still lead stage consumers and buckets: losing it costs their elections
  const led = await assetsLedBy(d, follower);
  const fault: Fault = { kind: "follower kill -9, store lost", target: follower, at: Date.now() };
  d.note(`kill -9 follower ${follower}; its store is lost`);
  await node.process.signal("SIGKILL");
  // the node's store, as startNatsCluster lays it out
  const store = join(d.home.dir, "nats", follower, "store");
  for (const entry of readdirSync(store)) rmSync(join(store, entry), { recursive: true, force: true });
  await load.waitForSuccesses(5, RECOVERY_LIMIT_MS);
  await node.process.start();
  const startedAt = Date.now();
  const current = await waitFor(async () => {
    const i = await d.admin.jsm.streams.info(STREAM_CALLS).catch(() => undefined);
    const r = i?.cluster?.replicas ?? [];
    return r.length === 2 && r.every((x) => x.current) ? Date.now() : undefined;
  }, RECOVERY_LIMIT_MS);
  d.note(`follower ${follower} ${current === undefined ? "did not catch up" : `caught up after ${current - startedAt} ms`}`);
  const t = await load.firstSuccessAfter(fault.at, RECOVERY_LIMIT_MS);
  if (t !== undefined) fault.recoveredAt = t;
  return { fault, caughtUpMs: current === undefined ? undefined : current - startedAt, led };
}

/** The streams and WARDEN_CALLS consumers whose raft leader is `server` now. */
async function assetsLedBy(d: Deployment, server: string): Promise<string[]> {
  const led: string[] = [];
  for await (const s of d.admin.jsm.streams.list()) if (s.cluster?.leader === server) led.push(s.config.name);
  for await (const c of d.admin.jsm.consumers.list(STREAM_CALLS)) if (c.cluster?.leader === server) led.push(`${STREAM_CALLS}>${c.name}`);
  return led;
}

/** Call ids the executor with this id started a run for, in order (from the marks file). */
function marksOf(file: string, executorId: string): Set<string> {
  const ids = new Set<string>();
  for (const line of readFileSync(file, "utf8").split("\n")) {
    const [word, who, callId] = line.split(" ");
    if (word === "start" && who === executorId && callId) ids.add(callId);
  }
  return ids;
}

async function waitFor<T>(check: () => T | undefined | Promise<T | undefined>, timeoutMs: number): Promise<T | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined || Date.now() > deadline) return v;
    await sleep(100);
  }
}

function shuffle<T>(xs: T[]): T[] {
  for (let i = xs.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [xs[i], xs[j]] = [xs[j]!, xs[i]!];
  }
  return xs;
}
