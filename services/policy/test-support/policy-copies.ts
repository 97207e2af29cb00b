import type { Bus } from "@warden/bus";
import { startTestNats, useStarted, type TestNats } from "@warden/testing";

export interface PolicyCopies<T> {
  readonly nats: TestNats;
  /** Provisions the streams and buckets, as the deployment does, and inspects. */
  readonly admin: Bus;
  /** What `open` made over the connection of copy policy-a, and of copy policy-b. */
  readonly a: T;
  readonly b: T;
}

/**
 * A real nats-server and two policy copies' views of one store (`open`), each over its own policy
 * connection, for the `describe` block this is called in: started before its tests and stopped after
 * them. Read the fields inside tests and hooks, not while the block is declared.
 */
export function usePolicyCopies<T>(open: (bus: Bus) => Promise<T>): PolicyCopies<T> {
  return useStarted(
    "usePolicyCopies",
    async () => {
      const nats = await startTestNats();
      const admin = await nats.bus("admin");
      const a = await open(await nats.connectAs({ kind: "service", name: "policy-a", role: "policy" }));
      const b = await open(await nats.connectAs({ kind: "service", name: "policy-b", role: "policy" }));
      return { nats, admin, a, b };
    },
    async ({ nats }) => nats.stop(),
  );
}
