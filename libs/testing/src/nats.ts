import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connectBus, ensureTopology, loadBusConfig, type Bus } from "@warden/bus";
import { startNatsServer, startNatsServerOnFreePort, type LocalNatsServer } from "@warden/local-nats";
import type { IdentitySpecInput } from "@warden/contracts/permissions";
import { openWardenHome, type LimitsInput, type WardenHome } from "@warden/identity";

export interface TestNats {
  readonly url: string;
  /** The provisioned home: keys, server config, every minted identity's credentials. */
  readonly home: WardenHome;
  /** A new admin connection (all rights) with the topology in place. */
  bus(name?: string): Promise<Bus>;
  /** A new connection as the given identity, minted on first use (no server restart needed). */
  connectAs(spec: IdentitySpecInput, connectionName?: string): Promise<Bus>;
  /** The credentials file of the given identity (minted on first use): what a spawned process gets as NATS_CREDS. */
  credsOf(spec: IdentitySpecInput): Promise<string>;
  /**
   * Kills the server (SIGKILL, as a crash) and starts it again on the same port after `downMs`, on
   * the same store or (`loseStore`) an empty one; the next `bus()` then provisions the streams again.
   */
  crashAndRestart(downMs: number, o?: { readonly loseStore?: boolean }): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A real nats-server for one suite, secured exactly as `warden up` secures it: operator-mode
 * auth, a Warden account for services and a clients account for agents and people, each identity
 * with the permissions of docs/security.md. No Docker engine runs on CI machines, so
 * testcontainers is not used.
 */
export async function startTestNats(options: { readonly limits?: LimitsInput } = {}): Promise<TestNats> {
  const dir = mkdtempSync(join(tmpdir(), "warden-test-home-"));
  // the JWTs' limits are the defaults `warden up` gives, unless a test asks for others
  const home = openWardenHome(dir, options.limits === undefined ? {} : { limits: options.limits });
  // WARDEN_TEST_NATS_LOG=FILE keeps the server's log, permission violations included
  const logFile = process.env["WARDEN_TEST_NATS_LOG"];
  let configFile = "";
  const configFor = async (port: number) => (configFile = await home.writeServerConfig({ host: "127.0.0.1", port }));
  const logged = logFile ? { logFile } : {};
  let server: LocalNatsServer;
  try {
    server = await startNatsServerOnFreePort({ configFor, storeDir: home.storeDir, ...logged });
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    // a missing binary's message already says how to get one
    throw new Error(`the tests' nats-server did not start: ${(err as Error).message}`);
  }
  const port = Number(new URL(server.url).port);
  const start = () => startNatsServer({ configFile, port, storeDir: home.storeDir, ...logged });
  const url = server.url;
  home.setUrl(url);
  const buses: Bus[] = [];
  let topologyReady = false;
  const connectAs = async (spec: IdentitySpecInput, connectionName?: string) => {
    const entry = await home.addIdentity(spec);
    const bus = await connectBus(loadBusConfig({ NATS_URL: url, NATS_CREDS: entry.creds }), connectionName ?? spec.name);
    buses.push(bus);
    return bus;
  };
  return {
    url,
    home,
    connectAs,
    credsOf: async (spec) => (await home.addIdentity(spec)).creds,
    async crashAndRestart(downMs, o = {}) {
      const exited = new Promise((r) => server.process.once("exit", r));
      server.process.kill("SIGKILL");
      await exited;
      // a server whose disk was replaced: it comes back with no streams at all
      if (o.loseStore === true) for (const entry of readdirSync(home.storeDir)) rmSync(join(home.storeDir, entry), { recursive: true, force: true });
      topologyReady = !(o.loseStore === true);
      await new Promise((r) => setTimeout(r, downMs));
      server = await start();
    },
    async bus(name = "test") {
      const bus = await connectAs({ kind: "admin", name: "admin" }, name);
      if (!topologyReady) {
        await ensureTopology(bus);
        topologyReady = true;
      }
      return bus;
    },
    async stop() {
      await Promise.allSettled(buses.map((b) => b.close()));
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
