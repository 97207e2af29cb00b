import { describe, expect, it } from "vitest";
import type { Bus } from "@warden/bus";
import { watchBusSteadiness } from "./bus-steadiness.js";

type Status = { type: string };

/** A connection whose status events are pushed by the test, as nats.js yields them. */
function connection() {
  const queue: Status[] = [];
  let wake: (() => void) | undefined;
  const nc = {
    status: () => ({
      async *[Symbol.asyncIterator]() {
        for (;;) {
          const next = queue.shift();
          if (next === undefined) await new Promise<void>((r) => (wake = r));
          else yield next;
        }
      },
    }),
  };
  const push = async (type: string) => {
    queue.push({ type });
    wake?.();
    await new Promise((r) => setImmediate(r));
  };
  return { bus: { nc } as unknown as Pick<Bus, "nc">, push };
}

describe("watchBusSteadiness", () => {
  it("counts from the last disconnect or reconnect, and from a noted fault", async () => {
    let now = 1_000;
    const { bus, push } = connection();
    const steadiness = watchBusSteadiness(bus, () => now);
    expect(steadiness.steadyForMs()).toBe(Infinity);
    await push("disconnect");
    now = 4_000;
    await push("reconnect");
    now = 6_500;
    expect(steadiness.steadyForMs()).toBe(2_500);
    steadiness.noteFault();
    now = 7_000;
    expect(steadiness.steadyForMs()).toBe(500);
  });

  it("does not count what is not an outage: a refused publish, a ping, a cluster update", async () => {
    let now = 1_000;
    const { bus, push } = connection();
    const steadiness = watchBusSteadiness(bus, () => now);
    for (const type of ["error", "ping", "update", "slowConsumer"]) await push(type);
    now = 2_000;
    expect(steadiness.steadyForMs()).toBe(Infinity);
  });
});
