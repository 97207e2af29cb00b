import type { Bus } from "@warden/bus";

/** A KV bucket handle, typed through the bus so this package needs no direct @nats-io/kv import. */
export type KV = Awaited<ReturnType<Bus["kvm"]["open"]>>;
