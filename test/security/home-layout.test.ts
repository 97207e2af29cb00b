import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, credsAuthenticator } from "@nats-io/transport-node";
import { openWardenHome } from "@warden/identity";
import { eventually } from "@warden/testing";

const MAIN = join(import.meta.dirname, "../../cli/dist/main.js");

interface UpSummary {
  readonly ok: boolean;
  readonly url: string;
  readonly identities: string[];
}

/** The pids whose parent is `pid` (from /proc). */
function childrenOf(pid: number): number[] {
  return readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        const stat = readFileSync(`/proc/${d}/stat`, "utf8");
        // the field after the parenthesised command name
        return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === pid;
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** Every connection the server has, with what it authenticated (`$SYS` connz, as the system account). */
async function connections(url: string, systemCreds: Uint8Array): Promise<{ name?: string; authorized_user?: string }[]> {
  const nc = await connect({ servers: url, authenticator: credsAuthenticator(systemCreds), name: "home-layout-test" });
  try {
    const r = await nc.request("$SYS.REQ.SERVER.PING.CONNZ", new TextEncoder().encode(JSON.stringify({ auth: true, limit: 1024 })), { timeout: 5_000 });
    const doc = JSON.parse(new TextDecoder().decode(r.data)) as { data: { connections: { name?: string; authorized_user?: string }[] } };
    return doc.data.connections;
  } finally {
    await nc.close();
  }
}

describe("WARDEN_HOME as `warden up` lays it out: one identity, one folder; nothing running holds the admin", () => {
  let dir: string;
  let home: string;
  let up: ChildProcess;
  let summary: UpSummary;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "warden-home-layout-"));
    home = join(dir, "home");
    const { NATS_URL: _u, NATS_CREDS: _c, ...env } = process.env;
    up = spawn(process.execPath, [MAIN, "up", "--demo", "--nats-port", "0", "--json"], { cwd: dir, env: { ...env, WARDEN_HOME: home, LOG_LEVEL: "silent" } });
    let out = "";
    up.stdout!.on("data", (c: Buffer) => (out += c.toString()));
    summary = await eventually(() => JSON.parse(out) as UpSummary, 30_000, 100);
  }, 60_000);

  afterAll(async () => {
    if (up.exitCode === null) {
      const exited = new Promise((r) => up.once("exit", r));
      up.kill("SIGTERM");
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it("keeps each identity's credentials in a folder of its own, readable by its owner alone, and the approver's key in the approver's", () => {
    expect(summary.ok).toBe(true);
    const env = openWardenHome(home).env();
    for (const name of summary.identities) {
      const own = join(home, "identities", name);
      expect(statSync(own).mode & 0o777).toBe(0o700);
      expect(env.identities[name]?.creds).toBe(join(own, "nats.creds"));
      expect(statSync(join(own, "nats.creds")).mode & 0o077).toBe(0);
      const files = readdirSync(own).sort();
      expect(files).toEqual(name === "approver" ? ["approver.pem", "nats.creds"] : ["nats.creds"]);
    }
    // nothing of one identity lies where another's process would be given its folder
    expect(existsSync(join(home, "creds"))).toBe(false);
    expect(existsSync(join(home, "keys", "approver.pem"))).toBe(false);
  });

  it("starts nats-server with a command line and an environment that name no path of the home and no credentials", () => {
    const servers = childrenOf(up.pid!).filter((pid) => readFileSync(`/proc/${pid}/comm`, "utf8").trim().startsWith("nats-server"));
    expect(servers).toHaveLength(1);
    const pid = servers[0]!;
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter((a) => a !== "");
    expect(cmdline.slice(1)).toEqual(["-c", "nats.conf"]);
    expect(cmdline.join(" ")).not.toContain(dir);
    const environ = readFileSync(`/proc/${pid}/environ`, "utf8");
    expect(environ).not.toContain(dir);
    expect(environ).not.toMatch(/WARDEN_|NATS_CREDS|NATS_URL|OPENAI/);
  });

  it("closes the admin's connection once the topology is provisioned: the server knows no connection of the admin's", async () => {
    const h = openWardenHome(home);
    const adminKey = h.identity("admin")!.publicKey;
    const conns = await connections(summary.url, await h.systemCreds());
    // the services are connected, each as itself (the control: the check sees them)
    const names = conns.map((c) => c.name ?? "");
    expect(names).toEqual(expect.arrayContaining(["warden-registry", "warden-policy", "warden-approver", "warden-notary", "warden-support-desk"]));
    expect(names).not.toContain("warden-admin");
    expect(conns.filter((c) => c.authorized_user === adminKey)).toEqual([]);
    // the control: connections are known by the key they authenticated with
    expect(conns.some((c) => c.authorized_user === h.identity("registry")!.publicKey)).toBe(true);
  });
});
