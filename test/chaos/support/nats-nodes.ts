import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { findNatsServerBinary, freePort, NATS_INSTALL_HINT } from "@warden/local-nats";
import { renderServerConfig, type WardenHome } from "@warden/identity";
import { managedProcess, type ManagedProcess } from "./managed-process.js";

/** One nats-server node; killing it with -9 and starting it again keeps its store dir. */
export interface NatsNode {
  /** The server_name JetStream reports (stream leader, replicas). */
  readonly serverName: string;
  readonly url: string;
  readonly process: ManagedProcess;
  /** A cluster node's route port (what its peers connect to). */
  readonly routePort?: number;
  /** A cluster node runs under its own group id, so its route traffic can be cut by owner (support/partition.ts). */
  readonly gid?: number;
}

export interface NatsNodes {
  readonly nodes: readonly NatsNode[];
  /** Every node's client URL, comma-separated, as NATS_URL takes it. */
  readonly url: string;
  /** The client URLs of the named nodes only, comma-separated (the client learns the others from the cluster). */
  urlOf(...serverNames: string[]): string;
  node(serverName: string): NatsNode;
  stop(): Promise<void>;
}

function binary(): string {
  const b = findNatsServerBinary();
  if (b === undefined) throw new Error(`the chaos suite needs a real nats-server: ${NATS_INSTALL_HINT}`);
  return b;
}

function nodeProcess(name: string, configFile: string, logDir: string, gid?: number): ManagedProcess {
  // setpriv changes only the group (still root, so the store and config stay readable) and execs: same pid
  const command = gid === undefined ? { command: binary(), args: ["-c", configFile] } : { command: "setpriv", args: [`--regid=${gid}`, "--clear-groups", binary(), "-c", configFile] };
  // nats-server is not restarted on a crash: the scenarios decide when a killed server comes back
  return managedProcess({ name, ...command, env: {}, logDir, ready: /Server is ready/, restartOnCrash: false });
}

/** Group ids of cluster nodes n1, n2, … (iptables matches a socket's owner by them); only root can switch groups. */
const NODE_GID_BASE = 64_200;
const canSwitchGroup = () => process.getuid?.() === 0 && spawnSync("setpriv", ["--version"]).status === 0;

/**
 * CHAOS_NATS_PING_INTERVAL (e.g. `2s`): an experiment, not `warden up`'s config — the server's ping
 * interval also paces its route pings (default 2 min), and so how soon a peer behind a partition
 * is noticed as gone.
 */
function pingSettings(): string {
  const interval = process.env["CHAOS_NATS_PING_INTERVAL"];
  return interval === undefined ? "" : `\nping_interval: "${interval}"\nping_max: 2\n`;
}

/** A single secured server, configured exactly as `warden up` configures it (the home's nats.conf). */
export async function startSingleNats(home: WardenHome, logDir: string): Promise<NatsNodes> {
  const port = await freePort();
  const configFile = await home.writeServerConfig({ host: "127.0.0.1", port });
  const node: NatsNode = { serverName: "warden", url: `nats://127.0.0.1:${port}`, process: nodeProcess("nats-server", configFile, logDir) };
  await node.process.start();
  return nodesOf([node]);
}

/**
 * A 3-node JetStream cluster with the same operator-mode auth as the single server: every node
 * trusts the home's operator and preloads its accounts; nodes route to each other on loopback.
 */
export async function startNatsCluster(home: WardenHome, logDir: string, size = 3): Promise<NatsNodes> {
  const ports = await distinctPorts(size * 2);
  const clientPorts = ports.slice(0, size);
  const routePorts = ports.slice(size);
  const routes = routePorts.map((p) => `nats-route://127.0.0.1:${p}`);
  const jwts = await home.jwts();
  const nodes: NatsNode[] = [];
  const ownGroups = canSwitchGroup();
  for (let i = 0; i < size; i++) {
    const serverName = `n${i + 1}`;
    const dir = join(home.dir, "nats", serverName);
    mkdirSync(join(dir, "jwt"), { recursive: true, mode: 0o700 });
    mkdirSync(join(dir, "store"), { recursive: true, mode: 0o700 });
    const configFile = join(dir, "nats.conf");
    const config = renderServerConfig({
      host: "127.0.0.1",
      port: clientPorts[i]!,
      storeDir: join(dir, "store"),
      resolverDir: join(dir, "jwt"),
      jwts,
      systemAccount: home.root.system.getPublicKey(),
      serverName,
      cluster: { name: "warden-chaos", port: routePorts[i]!, routes: routes.filter((_, j) => j !== i) },
    });
    writeFileSync(configFile, config + pingSettings(), { mode: 0o600 });
    const gid = ownGroups ? NODE_GID_BASE + i + 1 : undefined;
    nodes.push({
      serverName,
      url: `nats://127.0.0.1:${clientPorts[i]!}`,
      process: nodeProcess(`nats-${serverName}`, configFile, logDir, gid),
      routePort: routePorts[i]!,
      ...(gid === undefined ? {} : { gid }),
    });
  }
  // nodes start together: each waits for its routes before JetStream elects a meta leader
  await Promise.all(nodes.map((n) => n.process.start()));
  return nodesOf(nodes);
}

function nodesOf(nodes: NatsNode[]): NatsNodes {
  const node = (serverName: string) => {
    const n = nodes.find((x) => x.serverName === serverName);
    if (n === undefined) throw new Error(`no nats node named ${serverName}`);
    return n;
  };
  return {
    nodes,
    url: nodes.map((n) => n.url).join(","),
    urlOf: (...names) => names.map((name) => node(name).url).join(","),
    node,
    async stop() {
      await Promise.all(nodes.map((n) => n.process.stop()));
    },
  };
}

/** freePort may hand the same port twice when asked in a row; a cluster needs them all distinct. */
async function distinctPorts(n: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < n) ports.add(await freePort());
  return [...ports];
}
