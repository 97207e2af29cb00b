import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";

/** No Docker engine runs on CI machines, so the compose file is checked against the tree instead. */
const root = join(import.meta.dirname, "..");
const compose = parse(readFileSync(join(root, "docker-compose.yml"), "utf8"), { merge: true }) as {
  services: Record<string, { command?: string[]; environment?: Record<string, string>; image?: string; volumes?: string[] }>;
};

function configSources(): string {
  const files = [
    "libs/bus/src/config.ts",
    ...["registry", "policy", "approver", "executor", "projector"].map((s) => `services/${s}/src/config.ts`),
    "examples/support-desk/src/config.ts",
    "services/subagent/src/config.ts",
    "services/adapters/src/config.ts",
  ];
  return files.filter((f) => existsSync(join(root, f))).map((f) => readFileSync(join(root, f), "utf8")).join("\n");
}

describe("docker-compose.yml", () => {
  const services = Object.entries(compose.services);

  it("runs a three-node NATS cluster with JetStream and streams at three replicas", () => {
    const nats = services.filter(([, s]) => s.image?.startsWith("nats:"));
    expect(nats).toHaveLength(3);
    const conf = readFileSync(join(root, "deploy/nats-cluster.conf"), "utf8");
    expect(conf).toMatch(/jetstream/);
    expect(conf.match(/nats-route:\/\//g)).toHaveLength(3);
    for (const [, s] of services.filter(([, s]) => s.command?.[0] === "node")) {
      expect(s.environment?.["WARDEN_REPLICAS"]).toBe("3");
    }
  });

  it("has one container per Warden service, each running an entry point that exists in the tree", () => {
    const wardens = services.filter(([, s]) => s.command?.[0] === "node");
    expect(wardens.map(([name]) => name).sort()).toEqual(["adapters", "approver", "policy", "projector", "registry", "subagent", "support-desk"]);
    for (const [, s] of wardens) {
      const entry = s.command![1]!;
      const source = entry.replace("/dist/", "/src/").replace(/\.js$/, ".ts");
      expect(existsSync(join(root, source)), `${source} for ${entry}`).toBe(true);
    }
  });

  it("names only environment variables that some config schema reads", () => {
    const sources = configSources();
    for (const [name, s] of services) {
      for (const key of Object.keys(s.environment ?? {})) {
        expect(sources.includes(key), `${name}: ${key}`).toBe(true);
      }
    }
  });
});
