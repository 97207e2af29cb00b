import { describe, expect, it } from "vitest";
import { ConfigError, loadBusConfig } from "./config.js";

describe("loadBusConfig's retention of WARDEN_CALLS", () => {
  it("keeps six calendar months by default, and everything with 0", () => {
    expect(loadBusConfig({}).WARDEN_STREAM_MAX_AGE_S).toBe(184 * 24 * 3600);
    expect(loadBusConfig({ WARDEN_STREAM_MAX_AGE_S: "" }).WARDEN_STREAM_MAX_AGE_S).toBe(184 * 24 * 3600);
    expect(loadBusConfig({ WARDEN_STREAM_MAX_AGE_S: "0" }).WARDEN_STREAM_MAX_AGE_S).toBe(0);
  });

  it("refuses an age shorter than the stream's 120 s duplicate window, naming the variable", () => {
    expect(loadBusConfig({ WARDEN_STREAM_MAX_AGE_S: "120" }).WARDEN_STREAM_MAX_AGE_S).toBe(120);
    expect(() => loadBusConfig({ WARDEN_STREAM_MAX_AGE_S: "60" })).toThrow(ConfigError);
    expect(() => loadBusConfig({ WARDEN_STREAM_MAX_AGE_S: "60" })).toThrow(/WARDEN_STREAM_MAX_AGE_S="60": must be 0 \(keep everything\) or at least 120/);
  });
});
