import { describe, expect, it } from "vitest";
import { ConfigError } from "@warden/bus";
import { loadAdaptersConfig } from "./config.js";

describe("loadAdaptersConfig", () => {
  it("reads the manifests folder, the secrets file and the concurrency, with defaults", () => {
    expect(loadAdaptersConfig({})).toMatchObject({ WARDEN_MANIFESTS_DIR: "manifests", ADAPTERS_CONCURRENCY: 16 });
    expect(loadAdaptersConfig({ WARDEN_MANIFESTS_DIR: "/m", WARDEN_SECRETS_FILE: "/s.yaml", ADAPTERS_CONCURRENCY: "4" })).toMatchObject({
      WARDEN_MANIFESTS_DIR: "/m",
      WARDEN_SECRETS_FILE: "/s.yaml",
      ADAPTERS_CONCURRENCY: 4,
    });
  });

  it("names the variable of a bad value", () => {
    expect(() => loadAdaptersConfig({ ADAPTERS_CONCURRENCY: "lots" })).toThrow(ConfigError);
    expect(() => loadAdaptersConfig({ ADAPTERS_CONCURRENCY: "lots" })).toThrow(/ADAPTERS_CONCURRENCY/);
  });
});
