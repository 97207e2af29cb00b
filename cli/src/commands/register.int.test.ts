import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger, type Bus } from "@warden/bus";
import { startRegistryService } from "@warden/registry";
import { createRegistryClient } from "@warden/sdk";
import { stringify } from "yaml";
import { startTestNats, type TestNats } from "@warden/testing";
import { runCli } from "../run-cli.js";

const FIXTURE_SERVER = join(import.meta.dirname, "../../../services/adapters/test/fixtures/mcp-fixture-server.mjs");

describe("warden register FILE", () => {
  let nats: TestNats;
  let bus: Bus;
  let registry: { stop(): Promise<void> };
  let dir: string;

  const run = async (...argv: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(argv, {
      // the server and the operator's credentials come from WARDEN_HOME/env.json
      env: { WARDEN_HOME: nats.home.dir },
      cwd: dir,
      out: (t) => out.push(t),
      err: (t) => err.push(t),
      stopSignal: () => new Promise(() => {}),
    });
    return { code, out: out.join("\n"), err: err.join("\n") };
  };
  const manifest = (tools: unknown[], extra: Record<string, unknown> = {}) => ({ domain: "reg", tools, ...extra });
  const tool = {
    name: "list",
    version: "1.0.0",
    title: "List files",
    description: "Use to list the files of the project folder.",
    grade: "read",
    inputSchema: { type: "object", properties: {} },
    cli: { command: "ls", roots: ["."] },
  };

  beforeAll(async () => {
    nats = await startTestNats();
    bus = await nats.bus("register-test");
    registry = await startRegistryService({ bus: await nats.connectAs({ kind: "service", name: "registry", role: "registry" }), log: silentLogger() });
    dir = mkdtempSync(join(tmpdir(), "warden-register-"));
  });
  afterAll(async () => {
    await registry?.stop();
    await nats?.stop();
  });

  it("validates and registers a manifest's tools, enabled by default", async () => {
    writeFileSync(join(dir, "ok.yaml"), stringify(manifest([tool])));
    const r = await run("register", "ok.yaml", "--json");
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ ok: true, domain: "reg", registered: [{ name: "reg.list", version: "1.0.0", status: "enabled", created: true }] });
    const records = await createRegistryClient(bus).list();
    expect(records.ok && records.value.find((t) => t.descriptor.name === "reg.list")?.descriptor).toMatchObject({ network: "none" });
  });

  it("registers with another status when asked", async () => {
    writeFileSync(join(dir, "v2.yaml"), stringify(manifest([{ ...tool, version: "1.0.1" }])));
    const r = await run("register", "v2.yaml", "--status", "discovered", "--json");
    expect(JSON.parse(r.out)).toMatchObject({ registered: [{ version: "1.0.1", status: "discovered" }] });
  });

  it("refuses an invalid manifest with the line and path of each problem, registering nothing", async () => {
    writeFileSync(join(dir, "bad.yaml"), stringify(manifest([{ ...tool, name: "other", grade: "reed" }])));
    const r = await run("register", "bad.yaml");
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/bad\.yaml:\d+:\d+: tools\[0\]\.grade: /);
    const records = await createRegistryClient(bus).list();
    expect(records.ok && records.value.some((t) => t.descriptor.name === "reg.other")).toBe(false);
  });

  it("refuses new content under a registered version", async () => {
    writeFileSync(join(dir, "changed.yaml"), stringify(manifest([{ ...tool, description: "Use to list every file, changed wording." }])));
    const r = await run("register", "changed.yaml", "--json");
    expect(r.code).toBe(1);
    expect(JSON.parse(r.out)).toMatchObject({ ok: false, error: { code: "REGISTRATION_CONFLICT" } });
  });

  it("registers as the domain's own executor, and refuses an executor of another domain", async () => {
    // a domain team registers with its executor's credentials (--as NAME from WARDEN_HOME)
    await nats.home.addIdentity({ kind: "executor", name: "reg-executor", domains: ["reg"] });
    await nats.home.addIdentity({ kind: "executor", name: "other-executor", domains: ["other"] });
    writeFileSync(join(dir, "own.yaml"), stringify(manifest([{ ...tool, name: "own" }])));
    const own = await run("register", "own.yaml", "--as", "reg-executor", "--json");
    expect(own.code).toBe(0);
    expect(JSON.parse(own.out)).toMatchObject({ ok: true, registered: [{ name: "reg.own", created: true }] });

    writeFileSync(join(dir, "foreign.yaml"), stringify(manifest([{ ...tool, name: "foreign" }])));
    const foreign = await run("register", "foreign.yaml", "--as", "other-executor", "--json");
    // the server itself refuses the request: other-executor may publish only warden.registry.register.other
    expect(foreign.code).toBe(1);
    expect(JSON.parse(foreign.out)).toMatchObject({ ok: false, error: { code: "FORBIDDEN" } });
    const records = await createRegistryClient(bus).list();
    expect(records.ok && records.value.some((t) => t.descriptor.name === "reg.foreign")).toBe(false);
  });

  it("only validates with --dry-run, without NATS", async () => {
    const r = await runCli(["register", join(dir, "ok.yaml"), "--dry-run"], {
      env: { NATS_URL: "nats://127.0.0.1:1" },
      cwd: dir,
      out: (t) => expect(t).toMatch(/manifest for domain reg is valid[\s\S]*reg\.list/),
      err: () => {},
      stopSignal: () => new Promise(() => {}),
    });
    expect(r).toBe(0);
  });

  it("discovers an MCP server's tools with --discover and registers them as discovered", async () => {
    const config = join(dir, "fixture.json");
    writeFileSync(config, JSON.stringify({ description: "Use to echo text back, for the register test." }));
    writeFileSync(join(dir, "mcp.yaml"), stringify({ domain: "regmcp", mcp: { transport: "stdio", command: process.execPath, args: [FIXTURE_SERVER, config], network: "host" } }));
    const r = await run("register", "mcp.yaml", "--discover", "--json");
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.out) as { registered: { name: string; status: string }[] };
    expect(doc.registered).toContainEqual(expect.objectContaining({ name: "regmcp.echo", status: "discovered" }));
  });
});
