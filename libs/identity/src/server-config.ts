import type { AccountJwts } from "./trust-root.js";

/** One node's place in a JetStream cluster: the cluster's name, where it listens for routes, its peers. */
export interface ClusterOptions {
  /** The cluster's name; every node of one cluster gives the same. */
  readonly name: string;
  /** Where this node listens for routes (default the client host). */
  readonly host?: string;
  readonly port: number;
  /** The other nodes' route URLs (`nats-route://host:port`); listing itself is harmless. */
  readonly routes: readonly string[];
}

export interface ServerConfigOptions {
  readonly host: string;
  readonly port: number;
  readonly storeDir: string;
  /** Where the server keeps account JWTs it was sent (revocations survive a restart). */
  readonly resolverDir: string;
  readonly jwts: AccountJwts;
  readonly systemAccount: string;
  /** Unique per node of a cluster (JetStream places replicas by it); default `warden`. */
  readonly serverName?: string;
  /** Makes this node part of a cluster; absent for a single server. */
  readonly cluster?: ClusterOptions;
  /** The server writes its pid here, so the next `warden up` finds a server an earlier one left running. */
  readonly pidFile?: string;
  /** nats-server's Go profiler (`/debug/pprof/…`) on this port of `host`, for measuring the server under load. */
  readonly profPort?: number;
}

/** The operator-mode lines every node needs: whom to trust and the accounts it starts with. */
export function renderAuthConfig(jwts: AccountJwts, systemAccount: string): string {
  const preload = Object.entries(jwts.accounts)
    .map(([pub, jwt]) => `  ${pub}: ${jwt}`)
    .join("\n");
  return [`operator: ${jwts.operator}`, `system_account: ${systemAccount}`, "resolver_preload: {", preload, "}", ""].join("\n");
}

/**
 * A nats-server configuration in operator mode: every client must present a user JWT signed by
 * one of the trusted accounts; there is no anonymous or default user. With `cluster`, the node
 * also routes to its peers; the client side and auth stay exactly those of a single server.
 */
export function renderServerConfig(o: ServerConfigOptions): string {
  return [
    "# written by warden: operator-mode auth (docs/security.md); regenerated on every `warden up`",
    `host: ${JSON.stringify(o.host)}`,
    `port: ${o.port}`,
    `server_name: ${serverNameOf(o.serverName)}`,
    // a user JWT carries its permissions; an executor of several domains needs more than the 4 KiB default
    "max_control_line: 32768",
    `jetstream { store_dir: ${JSON.stringify(o.storeDir)} }`,
    ...(o.pidFile === undefined ? [] : [`pid_file: ${JSON.stringify(o.pidFile)}`]),
    ...(o.profPort === undefined ? [] : [`prof_port: ${o.profPort}`]),
    ...(o.cluster === undefined ? [] : [renderClusterBlock(o.cluster, o.host)]),
    `resolver: { type: full, dir: ${JSON.stringify(o.resolverDir)}, allow_delete: false, interval: "2m" }`,
    renderAuthConfig(o.jwts, o.systemAccount),
  ].join("\n");
}

/** A bare token, as nats-server reports it in cluster and stream info. */
function serverNameOf(name = "warden"): string {
  if (!/^[A-Za-z0-9_-]+$/.test(name)) throw new Error(`server name ${JSON.stringify(name)} must match ^[A-Za-z0-9_-]+$`);
  return name;
}

/** Routes carry no client traffic and no credentials: they listen on the given host only. */
function renderClusterBlock(c: ClusterOptions, clientHost: string): string {
  const routes = c.routes.map((r) => JSON.stringify(r)).join(", ");
  return `cluster { name: ${JSON.stringify(c.name)}, listen: ${JSON.stringify(`${c.host ?? clientHost}:${c.port}`)}, routes: [${routes}] }`;
}

/** A nats-server release, as `nats-server --version` prints it (`nats-server: v2.9.10`) or an image tag (`2.12`). */
export interface NatsServerVersion {
  readonly major: number;
  readonly minor: number;
  readonly patch: number;
}

/** `v2.9.10`, `nats-server: v2.9.10`, `2.12` or `2.12-alpine`; undefined when no version is in the text. */
export function parseNatsServerVersion(text: string): NatsServerVersion | undefined {
  const m = /(?:^|[\sv:])v?(\d+)\.(\d+)(?:\.(\d+))?/.exec(text.trim());
  if (!m) return undefined;
  return { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3] ?? 0) };
}

/** The first release that knows `jetstream { sync_interval }`: 2.9 refuses the whole file over it. */
const SYNC_INTERVAL_SINCE = { major: 2, minor: 10 } as const;

/** Whether this release syncs every write before acknowledging it when told (`sync_interval: always`). */
export function knowsSyncInterval(v: NatsServerVersion): boolean {
  return v.major > SYNC_INTERVAL_SINCE.major || (v.major === SYNC_INTERVAL_SINCE.major && v.minor >= SYNC_INTERVAL_SINCE.minor);
}

/**
 * The lines `deploy/nats-cluster.conf` includes inside its `jetstream` block, for the nats-server
 * release that will read them: `sync_interval: always` (fsync before acknowledging, what
 * production needs: docs/security.md, Production settings) from 2.10 on; on an older server,
 * which refuses that key, only a comment saying what is missing. `source` says where the version
 * came from (written into the file, for the operator who reads it).
 */
export function renderJetStreamDurability(version: NatsServerVersion, source: string): string {
  const shown = `${version.major}.${version.minor}.${version.patch}`;
  const head = `# written by \`warden provision\` for nats-server ${shown} (${source}); included in deploy/nats-cluster.conf's jetstream block`;
  if (knowsSyncInterval(version)) {
    return [head, "# fsync every write before it is acknowledged (the default 2-minute interval can lose acknowledged", "# writes on a power loss: Jepsen's 2025 NATS analysis)", "sync_interval: always", ""].join("\n");
  }
  return [
    head,
    `# nats-server ${shown} does not know sync_interval (2.10 and later do): writes are fsynced on its default`,
    "# interval, so a power loss can lose acknowledged writes. Development and CI only: production runs 2.12+",
    "",
  ].join("\n");
}
