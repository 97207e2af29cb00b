import { readFileSync } from "node:fs";
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import { Objm } from "@nats-io/obj";
import { connect, credsAuthenticator, type NatsConnection } from "@nats-io/transport-node";
import type { BusConfig } from "./config.js";

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

export async function connectBus(config: BusConfig, name: string): Promise<Bus> {
  const nc = await connect({
    servers: config.NATS_URL.split(","),
    name,
    maxReconnectAttempts: -1,
    // an Error with a stack per request costs ~10% CPU on the hot path (measured by the bench)
    noAsyncTraces: true,
    ...(config.NATS_CREDS ? { authenticator: credsAuthenticator(readFileSync(config.NATS_CREDS)) } : {}),
  });
  return busFromConnection(nc, config);
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
