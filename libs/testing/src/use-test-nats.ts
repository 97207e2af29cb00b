import type { Bus } from "@warden/bus";
import { startTestNats, type TestNats } from "./nats.js";
import { useStarted } from "./use-started.js";

export interface TestNatsFixture {
  readonly nats: TestNats;
  /** An admin connection with the topology in place: it sets up and inspects, never acts as a service. */
  readonly bus: Bus;
}

/**
 * One real nats-server for the `describe` block this is called in: started before its tests and
 * stopped after them. Read `nats` and `bus` inside tests and hooks, not while the block is declared.
 *
 * @example
 * ```ts
 * describe("appendEvent", () => {
 *   const t = useTestNats();
 *   it("writes once", async () => expect((await appendEvent(t.bus, event)).status).toBe("written"));
 * });
 * ```
 */
export function useTestNats(): TestNatsFixture {
  return useStarted(
    "useTestNats",
    async () => {
      const nats = await startTestNats();
      return { nats, bus: await nats.bus() };
    },
    async ({ nats }) => nats.stop(),
  );
}
