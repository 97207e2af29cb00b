/**
 * The NATS client types services handle, re-exported so that only @warden/bus depends on the
 * @nats-io packages and a client upgrade is one package's change.
 */
export type { KV, KvEntry } from "@nats-io/kv";
export type { JsMsg } from "@nats-io/jetstream";
export type { ObjectStore } from "@nats-io/obj";
export type { Msg, NatsConnection, Subscription } from "@nats-io/transport-node";
