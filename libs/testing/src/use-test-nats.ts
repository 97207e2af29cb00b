import { afterAll, beforeAll } from "vitest";
import type { Bus } from "@warden/bus";
import { startTestNats, type TestNats } from "./nats.js";

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
  let nats: TestNats | undefined;
  let bus: Bus | undefined;
  beforeAll(async () => {
    nats = await startTestNats();
    bus = await nats.bus();
  });
  afterAll(async () => nats?.stop());
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error("useTestNats: read nats and bus inside a test or hook, after beforeAll");
    return value;
  };
  return {
    get nats() {
      return started(nats);
    },
    get bus() {
      return started(bus);
    },
  };
}
