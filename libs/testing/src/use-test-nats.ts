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
export function useTestNats(): TestNatsFixture;
/** The same, then `setUp` connects or starts what the block's tests share and returns it; a block's own `afterAll` runs before the server stops. */
export function useTestNats<C extends object>(setUp: (nats: TestNats, bus: Bus) => Promise<C>): TestNatsFixture & Readonly<C>;
export function useTestNats<C extends object>(setUp?: (nats: TestNats, bus: Bus) => Promise<C>): TestNatsFixture & C {
  return useStarted(
    "useTestNats",
    async () => {
      const nats = await startTestNats();
      try {
        const bus = await nats.bus();
        return { ...((await setUp?.(nats, bus)) ?? ({} as C)), nats, bus };
      } catch (err) {
        // the block's afterAll has nothing to stop: a failed start leaves no server behind
        await nats.stop();
        throw err;
      }
    },
    async ({ nats }) => nats.stop(),
  );
}
