import { describe, expect, it } from "vitest";
import { knowsSyncInterval, parseNatsServerVersion, renderJetStreamDurability, renderServerConfig, type ServerConfigOptions } from "./server-config.js";

const base: ServerConfigOptions = {
  host: "127.0.0.1",
  port: 4222,
  storeDir: "/tmp/store",
  resolverDir: "/tmp/jwt",
  jwts: { operator: "OPJWT", accounts: { AWARDEN: "WJWT", ACLIENTS: "CJWT" } },
  systemAccount: "ASYS",
};

describe("renderServerConfig", () => {
  it("writes a single server exactly as before: named warden, no cluster block", () => {
    const text = renderServerConfig(base);
    expect(text).toBe(
      [
        "# written by warden: operator-mode auth (docs/security.md); regenerated on every `warden up`",
        'host: "127.0.0.1"',
        "port: 4222",
        "server_name: warden",
        "max_control_line: 32768",
        'jetstream { store_dir: "/tmp/store" }',
        'resolver: { type: full, dir: "/tmp/jwt", allow_delete: false, interval: "2m" }',
        "operator: OPJWT",
        "system_account: ASYS",
        "resolver_preload: {",
        "  AWARDEN: WJWT",
        "  ACLIENTS: CJWT",
        "}",
        "",
      ].join("\n"),
    );
  });

  it("gives a cluster node its own name and routes to its peers, with the same operator-mode auth", () => {
    const text = renderServerConfig({
      ...base,
      serverName: "n2",
      cluster: { name: "warden-c", port: 6223, routes: ["nats-route://127.0.0.1:6222", "nats-route://127.0.0.1:6224"] },
    });
    expect(text).toContain("server_name: n2\n");
    expect(text).toContain(
      'cluster { name: "warden-c", listen: "127.0.0.1:6223", routes: ["nats-route://127.0.0.1:6222", "nats-route://127.0.0.1:6224"] }',
    );
    expect(text).toContain("operator: OPJWT");
    expect(text).not.toContain("no_auth_user");
  });

  it("names the pid file when given, so the next warden up finds a server an earlier one left running", () => {
    expect(renderServerConfig(base)).not.toContain("pid_file");
    expect(renderServerConfig({ ...base, pidFile: "/h/nats/nats-server.pid" })).toContain('pid_file: "/h/nats/nats-server.pid"');
  });

  it("opens the Go profiler only when asked, on the server's own host", () => {
    expect(renderServerConfig(base)).not.toContain("prof_port");
    expect(renderServerConfig({ ...base, profPort: 6061 })).toContain("prof_port: 6061\n");
  });

  it("refuses a server name the config file could not carry as a bare token", () => {
    expect(() => renderServerConfig({ ...base, serverName: "a b" })).toThrow(/server name/);
  });
});

describe("the JetStream durability provisioning writes for a nats-server release", () => {
  it("reads a release from what nats-server --version prints and from an image tag", () => {
    expect(parseNatsServerVersion("nats-server: v2.9.10")).toEqual({ major: 2, minor: 9, patch: 10 });
    expect(parseNatsServerVersion("2.12")).toEqual({ major: 2, minor: 12, patch: 0 });
    expect(parseNatsServerVersion("2.12-alpine")).toEqual({ major: 2, minor: 12, patch: 0 });
    expect(parseNatsServerVersion("v2.10.0")).toEqual({ major: 2, minor: 10, patch: 0 });
    expect(parseNatsServerVersion("latest")).toBeUndefined();
  });

  it("syncs before acknowledging from 2.10 on, and leaves the key out for 2.9, which refuses it", () => {
    expect(knowsSyncInterval({ major: 2, minor: 9, patch: 10 })).toBe(false);
    expect(knowsSyncInterval({ major: 2, minor: 10, patch: 0 })).toBe(true);
    expect(knowsSyncInterval({ major: 3, minor: 0, patch: 0 })).toBe(true);
    const modern = renderJetStreamDurability({ major: 2, minor: 12, patch: 1 }, "from --nats-version");
    expect(modern).toMatch(/^sync_interval: always$/m);
    expect(modern).toContain("nats-server 2.12.1 (from --nats-version)");
    const old = renderJetStreamDurability({ major: 2, minor: 9, patch: 10 }, "found at /usr/sbin/nats-server");
    // nothing but comments: the file is included inside the jetstream block
    expect(old.split("\n").filter((l) => l.trim() !== "" && !l.startsWith("#"))).toEqual([]);
    expect(old).toContain("Development and CI only");
  });
});
