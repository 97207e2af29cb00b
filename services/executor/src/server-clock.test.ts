import { describe, expect, it } from "vitest";
import { createServerClock } from "./server-clock.js";

describe("the server clock", () => {
  it("reads the local clock plus the offset of the tightest recent measurement", () => {
    let local = 1_000_000;
    const clock = createServerClock(() => local);
    expect(clock.nowMs()).toBe(1_000_000);
    // the server stored the write 5 min ahead of this clock, half-way through a 20 ms round trip
    clock.observe(1_000_010 + 300_000, 1_000_000, 1_000_020);
    expect(clock.nowMs()).toBe(1_300_000);
    // a slower round trip within the minute does not replace the better estimate
    clock.observe(1_000_100, 1_000_000, 1_000_400);
    expect(clock.nowMs()).toBe(1_300_000);
    // a minute on, it does
    local = 1_070_000;
    clock.observe(1_070_050 - 300_000, 1_070_000, 1_070_100);
    expect(clock.nowMs()).toBe(1_070_000 - 300_000);
  });
});
