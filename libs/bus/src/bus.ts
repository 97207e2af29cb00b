import { readFileSync } from "node:fs";
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import { Objm } from "@nats-io/obj";
import { connect, credsAuthenticator, type NatsConnection } from "@nats-io/transport-node";
import { inboxPrefixOf, isSafeToken } from "@warden/contracts/subjects";
import type { BusConfig } from "./config.js";
import "./nats-request-patch.js";
import "./nats-flush-patch.js";

/** A connection with the JetStream, KV and object-store handles every service needs. */
export interface Bus {
  readonly nc: NatsConnection;
  readonly js: JetStreamClient;
  readonly jsm: JetStreamManager;
  readonly kvm: Kvm;
  readonly objm: Objm;
  readonly config: BusConfig;
  close(): Promise<void>;
}

/**
 * Connects to NATS as the identity of `config.NATS_CREDS` (reconnecting forever) and opens the
 * JetStream, KV and object-store handles. With credentials, replies come back under that
 * identity's own inbox prefix, the only inbox the server lets it subscribe to. A client-account
 * identity (agent, person) gets a usable bus too: it simply has no JetStream of its own.
 *
 * @param config - from {@link loadBusConfig}: `NATS_URL` (comma-separated servers) and `NATS_CREDS`.
 * @param name - the connection's name, shown by the server's monitoring (e.g. `"billing-executor"`).
 * @throws when the servers cannot be reached or refuse the credentials (broken infrastructure,
 *   not a value), or when `NATS_CREDS` names a file that cannot be read.
 * @example
 * ```ts
 * const bus = await connectBus(loadBusConfig(process.env), "my-agent");
 * try {
 *   // …createAgentClient({ bus, principal: "support-bot" })…
 * } finally {
 *   await bus.close(); // drains: in-flight messages are delivered first
 * }
 * ```
 */
export async function connectBus(config: BusConfig, name: string): Promise<Bus> {
  const creds = config.NATS_CREDS ? readFileSync(config.NATS_CREDS) : undefined;
  const identity = creds === undefined ? undefined : identityOfCreds(creds);
  const nc = await connect({
    servers: config.NATS_URL.split(","),
    name,
    maxReconnectAttempts: -1,
    // an Error with a stack per request costs ~10% CPU on the hot path (measured by the bench)
    noAsyncTraces: true,
    ...(creds === undefined ? {} : { authenticator: credsAuthenticator(creds) }),
    // replies come back under the identity's own prefix, the only inbox a client may subscribe to
    ...(identity === undefined ? {} : { inboxPrefix: inboxPrefixOf(identity) }),
  });
  return busFromConnection(nc, config);
}

/** The user name in a credentials file's JWT (what the identity was minted as); undefined if none. */
export function identityOfCreds(creds: Uint8Array): string | undefined {
  const jwt = /-----BEGIN NATS USER JWT-----\s*([A-Za-z0-9_.=-]+)\s*-----/.exec(Buffer.from(creds).toString("utf8"))?.[1];
  const payload = jwt?.split(".")[1];
  if (payload === undefined) return undefined;
  try {
    const name: unknown = (JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as { name?: unknown }).name;
    return typeof name === "string" && isSafeToken(name) ? name : undefined;
  } catch {
    return undefined;
  }
}

export async function busFromConnection(nc: NatsConnection, config: BusConfig): Promise<Bus> {
  // no account-info probe: a client-account connection has no JetStream of its own and never uses it
  const jsm = await jetstreamManager(nc, { checkAPI: false });
  const js = jetstream(nc, { checkAPI: false });
  return {
    nc,
    js,
    jsm,
    kvm: new Kvm(js),
    objm: new Objm(js),
    config,
    async close() {
      if (!nc.isClosed()) await nc.drain();
    },
  };
}
