import type { AccountJwts } from "./trust-root.js";

export interface ServerConfigOptions {
  readonly host: string;
  readonly port: number;
  readonly storeDir: string;
  /** Where the server keeps account JWTs it was sent (revocations survive a restart). */
  readonly resolverDir: string;
  readonly jwts: AccountJwts;
  readonly systemAccount: string;
}

/** The operator-mode lines every node needs: whom to trust and the accounts it starts with. */
export function renderAuthConfig(jwts: AccountJwts, systemAccount: string): string {
  const preload = Object.entries(jwts.accounts)
    .map(([pub, jwt]) => `  ${pub}: ${jwt}`)
    .join("\n");
  return [`operator: ${jwts.operator}`, `system_account: ${systemAccount}`, "resolver_preload: {", preload, "}", ""].join("\n");
}

/**
 * A single-node nats-server configuration in operator mode: every client must present a user JWT
 * signed by one of the trusted accounts; there is no anonymous or default user.
 */
export function renderServerConfig(o: ServerConfigOptions): string {
  return [
    "# written by warden: operator-mode auth (docs/security.md); regenerated on every `warden up`",
    `host: ${JSON.stringify(o.host)}`,
    `port: ${o.port}`,
    `server_name: warden`,
    // a user JWT carries its permissions; an executor of several domains needs more than the 4 KiB default
    "max_control_line: 32768",
    `jetstream { store_dir: ${JSON.stringify(o.storeDir)} }`,
    `resolver: { type: full, dir: ${JSON.stringify(o.resolverDir)}, allow_delete: false, interval: "2m" }`,
    renderAuthConfig(o.jwts, o.systemAccount),
  ].join("\n");
}
