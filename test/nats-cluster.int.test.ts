import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectBus, loadBusConfig, type Bus } from "@warden/bus";
import { STREAM_CALLS } from "@warden/contracts/subjects";
import { knowsSyncInterval, parseNatsServerVersion } from "@warden/identity";
import { freePort, natsServerVersionText, startNatsServer, type LocalNatsServer } from "@warden/local-nats";
import { eventually } from "@warden/testing";

/**
 * docker-compose.yml's cluster on this machine's nats-server (CI installs Debian's 2.9.10): the
 * same `warden provision` step, deploy/nats-cluster.conf as each node reads it, three processes
 * on loopback ports, then `warden topology` as the admin. No Docker engine runs here, so each
 * node's config is the deploy file with only its ports and its data root changed (three nodes
 * share one host); the auth files sit beside it where the container mounts them (./auth).
 */

const ROOT = join(import.meta.dirname, "..");
const CLI = join(ROOT, "cli/dist/main.js");
const DEPLOY_CONF = readFileSync(join(ROOT, "deploy/nats-cluster.conf"), "utf8");

interface NodePorts {
  readonly client: number;
  readonly http: number;
  readonly route: number;
}

/** The deploy file for one node of this host: each swap must find its line exactly once, so a change to the file fails here, not silently. */
function nodeConfig(ports: NodePorts, dataDir: string): string {
  const swaps: [RegExp, string][] = [
    [/^port: 4222$/gm, `port: ${ports.client}`],
    [/^http: 127\.0\.0\.1:8222$/gm, `http: 127.0.0.1:${ports.http}`],
    [/^ {2}port: 6222$/gm, `  port: ${ports.route}`],
    [/\/data\/jetstream$/gm, `${dataDir}/jetstream`],
    [/\/data\/jwt$/gm, `${dataDir}/jwt`],
  ];
  let text = DEPLOY_CONF;
  for (const [pattern, value] of swaps) {
    expect(text.match(pattern), `${pattern} in deploy/nats-cluster.conf`).toHaveLength(1);
    text = text.replace(pattern, value);
  }
  return text;
}

function warden(args: readonly string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const { NATS_URL: _u, NATS_CREDS: _c, WARDEN_HOME: _h, WARDEN_REPLICAS: _r, ...rest } = process.env;
  return new Promise((done) => {
    execFile(process.execPath, [CLI, ...args], { env: { ...rest, ...env }, timeout: 60_000 }, (err, stdout, stderr) =>
      done({ code: err ? (typeof err.code === "number" ? err.code : -1) : 0, stdout, stderr }),
    );
  });
}

async function distinctPorts(n: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < n) ports.add(await freePort());
  return [...ports];
}

describe("deploy/nats-cluster.conf on the installed nats-server", { timeout: 120_000 }, () => {
  const installed = parseNatsServerVersion(natsServerVersionText() ?? "");
  let dir: string;
  let home: string;
  let nodes: NodePorts[];
  let url: string;
  const servers: LocalNatsServer[] = [];
  let admin: Bus | undefined;

  beforeAll(async () => {
    expect(installed, "a nats-server on this machine that answers --version").toBeDefined();
    dir = mkdtempSync(join(tmpdir(), "warden-cluster-"));
    home = join(dir, "warden");
    const ports = await distinctPorts(9);
    nodes = [0, 1, 2].map((i) => ({ client: ports[i]!, http: ports[i + 3]!, route: ports[i + 6]! }));
    url = nodes.map((n) => `nats://127.0.0.1:${n.client}`).join(",");
  });

  afterAll(async () => {
    await admin?.close();
    await Promise.all(servers.map((s) => s.stop()));
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("provisions the nodes' files for the installed release: sync_interval only where the server knows it", async () => {
    const routes = nodes.map((n) => `127.0.0.1:${n.route}`).join(",");
    const out = await warden(["provision", "--out", home, "--demo", "--url", url, "--routes", routes, "--json"], {});
    expect(out.code, out.stderr).toBe(0);
    const report = JSON.parse(out.stdout) as { natsVersion: string; syncAlways: boolean };
    expect(report.natsVersion).toBe(`${installed!.major}.${installed!.minor}.${installed!.patch}`);
    expect(report.syncAlways).toBe(knowsSyncInterval(installed!));
    const durability = readFileSync(join(home, "server", "jetstream.conf"), "utf8");
    expect(/^sync_interval: always$/m.test(durability)).toBe(knowsSyncInterval(installed!));
  });

  it("starts three nodes from the deploy file that route to each other and report JetStream healthy", async () => {
    for (const [i, ports] of nodes.entries()) {
      const name = `nats-${i + 1}`;
      const nodeDir = join(dir, name);
      mkdirSync(join(nodeDir, "etc"), { recursive: true });
      // as the container mounts them: the config at /etc/nats/cluster.conf, the nats-auth volume at /etc/nats/auth
      symlinkSync(join(home, "server"), join(nodeDir, "etc", "auth"));
      const configFile = join(nodeDir, "etc", "cluster.conf");
      writeFileSync(configFile, nodeConfig(ports, join(nodeDir, "data")));
      // the command line compose gives each node (`--name nats-N`), clients on loopback only
      servers.push(await startNatsServer({ configFile, port: ports.client, args: ["--name", name, "-a", "127.0.0.1"] }));
    }
    for (const ports of nodes) {
      // compose's healthcheck: ok once JetStream has a meta leader
      await eventually(async () => {
        const res = await fetch(`http://127.0.0.1:${ports.http}/healthz`);
        expect(res.status).toBe(200);
      }, 30_000, 250);
      // a meta leader needs two nodes only: the third may still be routing in (2.9.10, a loaded box)
      await eventually(async () => {
        const routez = (await (await fetch(`http://127.0.0.1:${ports.http}/routez`)).json()) as { num_routes: number };
        expect(routez.num_routes).toBeGreaterThanOrEqual(2);
      }, 30_000, 250);
    }
  });

  it("takes the topology at three replicas as compose's topology step makes it, as the admin", async () => {
    const creds = join(home, "identities", "admin", "nats.creds");
    const out = await warden(["topology", "--demo", "--json"], { NATS_URL: url, NATS_CREDS: creds, WARDEN_REPLICAS: "3" });
    // --json puts a refusal on stdout
    expect(out.code, `${out.stderr}${out.stdout}`).toBe(0);
    admin = await connectBus(loadBusConfig({ NATS_URL: url, NATS_CREDS: creds }), "cluster-test");
    await eventually(async () => {
      const info = await admin!.jsm.streams.info(STREAM_CALLS);
      expect(info.config.num_replicas).toBe(3);
      expect(info.cluster?.leader).toMatch(/^nats-[123]$/);
      const replicas = info.cluster?.replicas ?? [];
      expect(replicas.map((r) => r.name).sort()).toEqual(["nats-1", "nats-2", "nats-3"].filter((n) => n !== info.cluster?.leader));
      for (const r of replicas) expect(r.current, r.name).toBe(true);
    }, 30_000, 250);
    // every stream and bucket the topology made (KV and object stores are streams too)
    const made: string[] = [];
    for await (const si of admin.jsm.streams.list()) {
      expect(si.config.num_replicas, si.config.name).toBe(3);
      made.push(si.config.name);
    }
    expect(made).toContain(STREAM_CALLS);
    expect(made.length).toBeGreaterThan(3);
  });
});
