import type { Bus } from "@warden/bus";
import { useStarted, useTestNats, type TestNats, type TestNatsFixture } from "@warden/testing";

/** A describe block's nats-server (`nats`, admin `bus`) and what its `setUp` made, read inside a test. */
export type UsedTestNats<C extends object> = TestNatsFixture & Readonly<C>;

/**
 * `useTestNats()`, then `setUp` connects or starts what the block's tests share (identities'
 * connections, services) and returns it. A block's own `afterAll` runs before the server stops.
 */
export function useTestNatsWith<C extends object>(setUp: (nats: TestNats, bus: Bus) => Promise<C>): UsedTestNats<C> {
  const t = useTestNats();
  return useStarted(
    "useTestNatsWith",
    async () => ({ ...(await setUp(t.nats, t.bus)), nats: t.nats, bus: t.bus }),
    // what setUp started, the block's own afterAll stops; the server stops with useTestNats
    async () => {},
  );
}
