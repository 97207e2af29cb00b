import { spawnSync } from "node:child_process";
import type { Bus } from "@warden/bus";
import { STREAM_CALLS } from "@warden/contracts/subjects";
import type { Deployment } from "./deployment.js";
import type { Fault } from "./faults.js";
import type { Load } from "./load.js";
import type { NatsNodes } from "./nats-nodes.js";

/**
 * A network partition of one cluster node on this machine: its route traffic to and from the
 * other nodes is dropped, its client port is left alone (clients connected to it stay connected,
 * as clients on the minority side of a real split would).
 *
 * How: every node runs under its own group id (nats-nodes.ts). In an iptables chain of this
 * partition's own, hooked into OUTPUT on loopback (every packet here is locally sent, so OUTPUT
 * sees both directions):
 *  1. a route-port packet the node's process sends marks its connection (CONNMARK) — the routes it
 *     dialled and the ones it accepted;
 *  2. every packet of a marked connection is dropped, both ways (the peer's replies carry no owner
 *     of the node, only the connection's mark);
 *  3. anything to or from its own route port is dropped, so no new route gets through either.
 * Heal deletes the jump and the chain: exactly what was added, nothing else in the table.
 */
export interface Partition {
  readonly node: string;
  readonly at: number;
  /** Removes the partition's rules; a second call does nothing. */
  heal(): void;
}

const active = new Map<string, () => void>();
// a worker that dies mid-scenario must not leave the machine's loopback cut
process.once("exit", () => healAll());

function iptables(args: readonly string[], mustSucceed = true): boolean {
  const r = spawnSync("iptables", ["-w", ...args], { encoding: "utf8" });
  if (r.status !== 0 && mustSucceed) throw new Error(`iptables ${args.join(" ")}: ${(r.stderr || r.error?.message || "failed").trim()} (the partition scenarios need root and iptables; Debian: apt-get install iptables)`);
  return r.status === 0;
}

/** Cuts `serverName` off from the other nodes of the cluster. */
export function partitionNode(nats: NatsNodes, serverName: string): Partition {
  const node = nats.node(serverName);
  if (node.gid === undefined || node.routePort === undefined) {
    throw new Error(`${serverName} has no group of its own: a partition needs a cluster started as root (nats-nodes.ts)`);
  }
  const chain = `WARDEN-PART-${node.routePort}`;
  if (active.has(chain)) throw new Error(`${serverName} is already partitioned`);
  const routePorts = nats.nodes.flatMap((n) => (n.routePort === undefined ? [] : [n.routePort])).join(",");
  const mark = `0x${(0x57000000 + node.routePort).toString(16)}`;
  const hook = ["OUTPUT", "-o", "lo", "-p", "tcp", "-j", chain];
  iptables(["-N", chain]);
  const heal = () => {
    iptables(["-D", ...hook], false);
    iptables(["-F", chain], false);
    iptables(["-X", chain], false);
    active.delete(chain);
  };
  active.set(chain, heal);
  try {
    const routes = ["-p", "tcp", "-m", "multiport", "--ports", routePorts];
    iptables(["-A", chain, ...routes, "-m", "owner", "--gid-owner", String(node.gid), "-j", "CONNMARK", "--set-mark", mark]);
    iptables(["-A", chain, ...routes, "-m", "connmark", "--mark", mark, "-j", "DROP"]);
    iptables(["-A", chain, "-p", "tcp", "-m", "multiport", "--ports", String(node.routePort), "-j", "DROP"]);
    iptables(["-I", ...hook.slice(0, 1), "1", ...hook.slice(1)]);
  } catch (err) {
    heal();
    throw err;
  }
  return { node: serverName, at: Date.now(), heal };
}

/** Heals every partition still in place (a scenario's finally, the process's exit). */
export function healAll(): void {
  for (const heal of [...active.values()]) heal();
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor<T>(check: () => Promise<T | undefined>, timeoutMs: number): Promise<T | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined || Date.now() > deadline) return v;
    await sleep(100);
  }
}

/** The stream's leader as the admin's server reports it, or undefined while there is none (bounded to 1 s per ask). */
export async function streamLeader(admin: Bus, stream = STREAM_CALLS): Promise<string | undefined> {
  const asked = admin.jsm.streams.info(stream).catch(() => undefined);
  return (await Promise.race([asked, sleep(1_000).then(() => undefined)]))?.cluster?.leader;
}

/**
 * Asks the stream's leader to step down until one `wanted` leads (nats-server 2.9 takes no
 * preferred peer: each step-down elects a random one of the others).
 */
export async function leadStreamWhere(admin: Bus, wanted: (leader: string) => boolean, stream = STREAM_CALLS, tries = 20): Promise<string> {
  for (let i = 0; ; i++) {
    const leader = await waitFor(() => streamLeader(admin, stream), 30_000);
    if (leader !== undefined && wanted(leader)) return leader;
    if (i >= tries) throw new Error(`${stream}: no wanted leader after ${tries} step-downs (now ${leader ?? "none"})`);
    // a step-down to a replica that is behind would be refused or lose time: wait until all are current
    await caughtUp(admin, [stream], 30_000);
    await admin.nc.request(`$JS.API.STREAM.LEADER.STEPDOWN.${stream}`, undefined, { timeout: 5_000 }).catch(() => undefined);
    await waitFor(async () => {
      const now = await streamLeader(admin, stream);
      return now !== undefined && now !== leader ? true : undefined;
    }, 30_000);
  }
}

/** Resolves with the time every replica of each stream was current (none offline, no lag), or undefined after `timeoutMs`. */
export async function caughtUp(admin: Bus, streams: readonly string[], timeoutMs: number): Promise<number | undefined> {
  return waitFor(async () => {
    for (const s of streams) {
      const info = await admin.jsm.streams.info(s).catch(() => undefined);
      const replicas = info?.cluster?.replicas ?? [];
      const current = replicas.length === (info?.config.num_replicas ?? 1) - 1 && replicas.every((r) => r.current && r.offline !== true && (r.lag ?? 0) === 0);
      if (info?.cluster?.leader === undefined || !current) return undefined;
    }
    return Date.now();
  }, timeoutMs);
}

/** Every stream of the deployment (the call stream, the DLQ, each KV bucket's); asked again while JetStream has no meta leader. */
export async function streamNames(admin: Bus, timeoutMs = 60_000): Promise<string[]> {
  const names = await waitFor(async () => {
    try {
      const found: string[] = [];
      for await (const n of admin.jsm.streams.names()) found.push(n);
      return found;
    } catch {
      // "JetStream system temporarily unavailable": a heal can make the cluster elect its meta leader again
      await sleep(500);
      return undefined;
    }
  }, timeoutMs);
  if (names === undefined) throw new Error(`JetStream listed no streams within ${timeoutMs} ms`);
  return names;
}

/** The nodes a process holds client connections to (from `ss`: its established TCP peers on client ports). */
export function nodesOfProcess(nats: NatsNodes, pid: number | undefined): string[] {
  if (pid === undefined) return [];
  const out = spawnSync("ss", ["-Htnp", "state", "established"], { encoding: "utf8" }).stdout ?? "";
  const ports = new Map(nats.nodes.map((n) => [new URL(n.url).port, n.serverName]));
  const found = new Set<string>();
  for (const line of out.split("\n")) {
    if (!line.includes(`pid=${pid},`)) continue;
    const peer = line.trim().split(/\s+/)[3] ?? "";
    const name = ports.get(peer.slice(peer.lastIndexOf(":") + 1));
    if (name !== undefined) found.add(name);
  }
  return [...found];
}

/** What one partition under load showed, besides the faults' recovery. */
export interface PartitionOutcome {
  readonly faults: Fault[];
  /** The node leading WARDEN_CALLS when the partition began. */
  readonly leaderBefore: string;
  /** When the admin (on the majority) saw another WARDEN_CALLS leader; for a follower's partition, none is expected. */
  readonly electedAt?: number;
  /** Whether a call asked for after the partition began succeeded before it was healed. */
  readonly recoveredWhileCut: boolean;
  /** The longest time without a successful call between the partition and `holdMs` after the heal. */
  readonly longestGapMs: number;
  /** From the heal until every replica of every stream was current again (undefined: not within the limit). */
  readonly caughtUpMs?: number;
}

/**
 * Partitions `node` under load for `holdMs`, then heals it: the partition's recovery is the first
 * call asked for after it that succeeded (Fault.recoveredAt, filled in by the phase if it came only
 * after the heal), the heal's is measured likewise by the phase; the rejoin is timed here.
 */
export async function partitionUnderLoad(d: Deployment, load: Load, o: { node: string; holdMs: number; catchUpLimitMs?: number }): Promise<PartitionOutcome> {
  const leaderBefore = (await streamLeader(d.admin)) ?? "none";
  const p = partitionNode(d.nats, o.node);
  try {
    const cut: Fault = { kind: "partition", target: `${o.node}${o.node === leaderBefore ? " (WARDEN_CALLS leader)" : ""}`, at: p.at };
    d.note(`partitioned ${o.node} (WARDEN_CALLS leader: ${leaderBefore})`);
    const elected =
      o.node === leaderBefore
        ? waitFor(async () => {
            const now = await streamLeader(d.admin);
            return now !== undefined && now !== o.node ? Date.now() : undefined;
          }, o.holdMs)
        : Promise.resolve(undefined);
    const t = await load.firstSuccessAfter(p.at, o.holdMs);
    if (t !== undefined) cut.recoveredAt = t;
    const electedAt = await elected;
    d.note(`partition of ${o.node}: calls flow again after ${t === undefined ? "not while cut" : `${t - p.at} ms`}`);
    await sleep(Math.max(0, p.at + o.holdMs - Date.now()));
    p.heal();
    const healed: Fault = { kind: "heal", target: o.node, at: Date.now() };
    d.note(`healed ${o.node}`);
    const caught = await caughtUp(d.admin, await streamNames(d.admin), o.catchUpLimitMs ?? 90_000);
    d.note(`after the heal every stream's replicas current after ${caught === undefined ? "never" : `${caught - healed.at} ms`}`);
    await sleep(Math.max(0, healed.at + o.holdMs - Date.now()));
    return {
      faults: [cut, healed],
      leaderBefore,
      ...(electedAt === undefined ? {} : { electedAt }),
      recoveredWhileCut: t !== undefined,
      longestGapMs: longestGap(load, p.at, healed.at + o.holdMs),
      ...(caught === undefined ? {} : { caughtUpMs: caught - healed.at }),
    };
  } finally {
    p.heal();
  }
}

/** The longest stretch in [from, to] with no call succeeding, as the agents saw it. */
function longestGap(load: Load, from: number, to: number): number {
  const ends = load.records.flatMap((r) => (r.ok && r.settledAt !== undefined && r.settledAt >= from && r.settledAt <= to ? [r.settledAt] : [])).sort((a, b) => a - b);
  let gap = 0;
  let last = from;
  for (const t of [...ends, Math.min(to, Date.now())]) {
    gap = Math.max(gap, t - last);
    last = t;
  }
  return gap;
}
