import type { Bus } from "@warden/bus";

/** The KV handle type, taken from the bus so this package needs no direct @nats-io dependency. */
export type KV = Awaited<ReturnType<Bus["kvm"]["open"]>>;
