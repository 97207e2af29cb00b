import { describe, expect, it } from "vitest";
import { ConfigError } from "@warden/bus";
import { loadConfig } from "./config.js";

describe("loadConfig", () => {
  it("reads the manifests folder, the secrets file and the concurrency, with defaults", () => {
    expect(loadConfig({})).toMatchObject({ WARDEN_MANIFESTS_DIR: "manifests", WARDEN_ADAPTERS_CONCURRENCY: 16 });
    expect(loadConfig({ WARDEN_MANIFESTS_DIR: "/m", WARDEN_SECRETS_FILE: "/s.yaml", WARDEN_ADAPTERS_CONCURRENCY: "4" })).toMatchObject({
      WARDEN_MANIFESTS_DIR: "/m",
      WARDEN_SECRETS_FILE: "/s.yaml",
      WARDEN_ADAPTERS_CONCURRENCY: 4,
    });
  });

  it("names the variable of a bad value", () => {
    expect(() => loadConfig({ WARDEN_ADAPTERS_CONCURRENCY: "lots" })).toThrow(ConfigError);
    expect(() => loadConfig({ WARDEN_ADAPTERS_CONCURRENCY: "lots" })).toThrow(/WARDEN_ADAPTERS_CONCURRENCY/);
  });
});
