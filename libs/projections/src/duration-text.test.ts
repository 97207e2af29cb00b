import { describe, expect, it } from "vitest";
import { durationText } from "./duration-text.js";

describe("durationText", () => {
  it("writes durations short", () => {
    expect([0, 340.4, 4_240, 59_999, 185_000, 7_800_000].map(durationText)).toEqual(["0 ms", "340 ms", "4.2 s", "60 s", "3 min 05 s", "2 h 10 min"]);
  });
});
