import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectBus, loadBusConfig } from "@warden/bus";
import { freePort, startNatsServer, type LocalNatsServer } from "@warden/local-nats";
import { StorageType } from "@nats-io/jetstream";
import { BUCKET_EXECUTORS, STREAM_CALLS } from "@warden/contracts/subjects";

const MAIN = resolve(dirname(fileURLToPath(import.meta.url)), "../../dist/main.js");

function warden(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const { NATS_URL: _u, NATS_CREDS: _c, WARDEN_HOME: _h, ...rest } = process.env;
  return new Promise((done) => {
    execFile(process.execPath, [MAIN, ...args], { env: { ...rest, ...env }, timeout: 60_000 }, (err, stdout, stderr) =>
      done({ code: err ? (typeof err.code === "number" ? err.code : -1) : 0, stdout, stderr }),
    );
  });
}

// what docker-compose.yml does, on one node: provision offline, start a server from the files, topology as the admin
describe("warden provision and warden topology", { timeout: 90_000 }, () => {
  let dir: string;
  let server: LocalNatsServer;
  let url: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "warden-provision-"));
    const port = await freePort();
    url = `nats://127.0.0.1:${port}`;
    const out = await warden(["provision", "--out", join(dir, "home"), "--demo", "--url", url, "--json"], {});
    expect(out.code, out.stderr).toBe(0);
    const conf = join(dir, "node.conf");
    writeFileSync(
      conf,
      [
        `host: 127.0.0.1`,
        `port: ${port}`,
        `max_control_line: 32768`,
        `jetstream { store_dir: ${JSON.stringify(join(dir, "store"))} }`,
        `include ./home/server/auth.conf`,
        `resolver { type: full, dir: ${JSON.stringify(join(dir, "jwt"))}, allow_delete: false }`,
      ].join("\n"),
    );
    server = await startNatsServer({ configFile: conf, port, storeDir: join(dir, "store") });
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("writes one credentials folder per identity, secrets readable by their owner only", () => {
    const approverDir = join(dir, "home", "identities", "approver");
    expect(statSync(join(approverDir, "nats.creds")).mode & 0o077).toBe(0);
    expect(statSync(join(approverDir, "approver.pem")).mode & 0o077).toBe(0);
    const pinned = readFileSync(join(dir, "home", "identities", "support-desk", "approver-public-keys"), "utf8").trim();
    expect(pinned).toMatch(/^MCowBQYDK2VwAyEA/);
    expect(() => statSync(join(dir, "home", "identities", "support-desk", "approver.pem"))).toThrow();
  });

  it("lets only the admin create the topology, and each service connect with its own folder", async () => {
    const asRegistry = await warden(["topology", "--creds", join(dir, "home", "identities", "registry", "nats.creds")], { NATS_URL: url });
    expect(asRegistry.code).not.toBe(0);
    expect(asRegistry.stderr).toMatch(/may not create it/);
    const asAdmin = await warden(["topology", "--demo", "--json"], { WARDEN_HOME: join(dir, "home") });
    expect(asAdmin.code, asAdmin.stderr).toBe(0);
    expect(JSON.parse(asAdmin.stdout)).toMatchObject({ ok: true, policyVersion: expect.stringMatching(/^support-desk/) });
    const registry = await connectBus(loadBusConfig({ NATS_URL: url, NATS_CREDS: join(dir, "home", "identities", "registry", "nats.creds") }), "t");
    try {
      expect((await registry.jsm.streams.info(STREAM_CALLS)).config.max_msgs_per_subject).toBe(1);
    } finally {
      await registry.close();
    }
  });

  it("keeps keys and credentials when run again", async () => {
    const before = readFileSync(join(dir, "home", "identities", "alice", "nats.creds"), "utf8");
    const again = await warden(["provision", "--out", join(dir, "home"), "--demo", "--url", url], {});
    expect(again.code, again.stderr).toBe(0);
    expect(readFileSync(join(dir, "home", "identities", "alice", "nats.creds"), "utf8")).toBe(before);
  });

  it("keeps the executors' heartbeat bucket through a restart of the server, and moves one kept in memory to file", async () => {
    const stream = `KV_${BUCKET_EXECUTORS}`;
    const asAdmin = () => connectBus(loadBusConfig({ NATS_URL: url, NATS_CREDS: join(dir, "home", "identities", "admin", "nats.creds") }), "t");
    let admin = await asAdmin();
    try {
      // as a topology provisioned before would have it: a single server does not keep a memory stream
      await admin.jsm.streams.delete(stream);
      await admin.kvm.create(BUCKET_EXECUTORS, { history: 1, storage: StorageType.Memory, ttl: 15_000 });
    } finally {
      await admin.close();
    }
    const again = await warden(["topology", "--demo"], { WARDEN_HOME: join(dir, "home") });
    expect(again.code, again.stderr).toBe(0);
    const { port, configFile } = { port: Number(new URL(url).port), configFile: join(dir, "node.conf") };
    await server.stop();
    server = await startNatsServer({ configFile, port, storeDir: join(dir, "store") });
    admin = await asAdmin();
    try {
      expect((await admin.jsm.streams.info(stream)).config.storage).toBe(StorageType.File);
    } finally {
      await admin.close();
    }
  });
});
