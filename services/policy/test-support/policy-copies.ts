import type { Bus } from "@warden/bus";
import { startTestNats, type TestNats } from "@warden/testing";

export interface PolicyCopies<T> {
  readonly nats: TestNats;
  /** Provisions the streams and buckets, as the deployment does, and inspects. */
  readonly admin: Bus;
  /** What `open` made over the connection of copy policy-a, and of copy policy-b. */
  readonly a: T;
  readonly b: T;
}

/** A real nats-server and two policy copies' views of one store (`open`), each over its own policy connection. */
export async function startPolicyCopies<T>(open: (bus: Bus) => Promise<T>): Promise<PolicyCopies<T>> {
  const nats = await startTestNats();
  const admin = await nats.bus("admin");
  const a = await open(await nats.connectAs({ kind: "service", name: "policy-a", role: "policy" }));
  const b = await open(await nats.connectAs({ kind: "service", name: "policy-b", role: "policy" }));
  return { nats, admin, a, b };
}
