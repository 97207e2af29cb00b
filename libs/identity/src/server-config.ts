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
