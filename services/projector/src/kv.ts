import type { Bus } from "@warden/bus";

/** A KV bucket handle, typed through the bus so this package needs no direct @nats-io/kv import. */
export type KV = Awaited<ReturnType<Bus["kvm"]["open"]>>;

type Consumer = Awaited<ReturnType<Bus["js"]["consumers"]["get"]>>;
/** A consumed JetStream message, typed through the bus for the same reason. */
export type JsMsg = Awaited<ReturnType<Consumer["next"]>> & {};
