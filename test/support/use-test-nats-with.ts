import { beforeAll } from "vitest";
import type { Bus } from "@warden/bus";
import { useTestNats, type TestNats, type TestNatsFixture } from "@warden/testing";
import { readAfterBeforeAll } from "./read-after-before-all.js";

/** A describe block's nats-server (`nats`, admin `bus`) and what its `setUp` made, read inside a test. */
export type UsedTestNats<C extends object> = TestNatsFixture & Readonly<C>;

/**
 * `useTestNats()`, then `setUp` connects or starts what the block's tests share (identities'
 * connections, services) and returns it. A block's own `afterAll` runs before the server stops.
 */
export function useTestNatsWith<C extends object>(setUp: (nats: TestNats, bus: Bus) => Promise<C>): UsedTestNats<C> {
  const t = useTestNats();
  let made: UsedTestNats<C> | undefined;
  beforeAll(async () => {
    made = { ...(await setUp(t.nats, t.bus)), nats: t.nats, bus: t.bus };
  });
  return readAfterBeforeAll("useTestNatsWith", () => made);
}
