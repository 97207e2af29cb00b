import { spawnSync } from "node:child_process";
import { createServer } from "node:net";
import { findNatsServerBinary, NATS_INSTALL_HINT, startNatsServer, startNatsServerOnFreePort, type LocalNatsServer } from "@warden/local-nats";
import { connect } from "@nats-io/transport-node";
import { ConfigError, isPermissionViolation, parseEnv } from "@warden/bus";
import { z } from "zod";
import type { WardenHome } from "@warden/identity";
import { CliError, EXIT_FAILED, EXIT_UNREACHABLE } from "../errors.js";
import type { CommandIo } from "../io.js";
import { stopLeftoverServer } from "./leftover-server.js";

export const DEFAULT_NATS_PORT = 4222;

export interface ProvisionedNats {
  readonly url: string;
  /** Set when we started the server (and must stop it). */
  readonly server?: LocalNatsServer;
}

/**
 * DESIGN.md §8: NATS_URL when set; else a nats-server binary; else, as root with apt, install
 * Debian's package; else a clear message naming the ways to get one.
 */
export async function provisionNats(io: CommandIo, home: WardenHome, requestedPort?: number): Promise<ProvisionedNats> {
  const url = io.env["NATS_URL"];
  if (url !== undefined && url !== "") return { url };
  const named = io.env["NATS_SERVER_BIN"];
  // a binary named by the operator is never swapped for Debian's release
  const binary = findNatsServerBinary(io.env) ?? (named ? undefined : installWithApt(io));
  if (binary === undefined) {
    throw new CliError("UNAVAILABLE", named ? `NATS_SERVER_BIN names ${named}, which does not exist` : `no nats-server found: ${NATS_INSTALL_HINT}`);
  }
  const port = requestedPort ?? DEFAULT_NATS_PORT;
  const anyPort = requestedPort === 0 || (requestedPort === undefined && !(await isPortFree(DEFAULT_NATS_PORT)));
  await stopLeftoverServer(home.serverPidFile, io);
  // operator-mode auth: every connection needs credentials minted from this home's keys
  const profPort = profilerPort(io.env);
  const configFor = (p: number) => home.writeServerConfig({ host: "127.0.0.1", port: p, ...(profPort === undefined ? {} : { profPort }) });
  const server = anyPort
    ? await startNatsServerOnFreePort({ binary, configFor, storeDir: home.storeDir })
    : await startNatsServer({ binary, configFile: await configFor(port), port, storeDir: home.storeDir });
  home.setUrl(server.url);
  return { url: server.url, server };
}

/** WARDEN_NATS_PROF_PORT: nats-server's Go profiler on a loopback port (the bench's `--profile` reads it); unset, none. */
const ProfilerEnvSchema = z.object({ WARDEN_NATS_PROF_PORT: z.coerce.number().int().min(1).max(65_535).optional() });

function profilerPort(env: NodeJS.ProcessEnv): number | undefined {
  try {
    return parseEnv(ProfilerEnvSchema, env).WARDEN_NATS_PROF_PORT;
  } catch (err) {
    if (err instanceof ConfigError) throw new CliError("INVALID_REQUEST", err.message, EXIT_FAILED);
    throw err;
  }
}

/**
 * True when an unauthenticated client may publish on `warden.>` there. A probe request on a
 * subject no service answers: a permission violation (or a refused connection) means secured.
 */
export async function checkServerRefusesAnonymous(url: string): Promise<boolean> {
  let nc;
  try {
    nc = await connect({ servers: url.split(","), name: "warden-probe", timeout: 3_000, reconnect: false });
  } catch (err) {
    if (isPermissionViolation(err)) return false;
    throw new CliError("UNAVAILABLE", `cannot reach NATS at ${url} (${(err as Error).message})`, EXIT_UNREACHABLE);
  }
  try {
    await nc.request("warden.insecure-probe", new Uint8Array(), { timeout: 1_000 });
    return true;
  } catch (err) {
    return !isPermissionViolation(err);
  } finally {
    await nc.close();
  }
}

function installWithApt(io: CommandIo): string | undefined {
  const isRoot = process.getuid?.() === 0;
  const hasApt = spawnSync("sh", ["-c", "command -v apt-get"], { encoding: "utf8" }).status === 0;
  if (!isRoot || !hasApt) return undefined;
  io.err("warden: nats-server not found; installing it with apt-get (Debian's nats-server package)");
  // apt's output goes to stderr so that stdout keeps only what the command prints
  const apt = (args: string[]) =>
    spawnSync("apt-get", args, { stdio: ["ignore", 2, 2], env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } }).status === 0;
  if (!apt(["install", "-y", "nats-server"])) {
    // a fresh machine may have no package lists yet
    if (!apt(["update"]) || !apt(["install", "-y", "nats-server"])) return undefined;
  }
  return findNatsServerBinary();
}

function isPortFree(port: number): Promise<boolean> {
  return new Promise((done) => {
    const srv = createServer();
    srv.unref();
    srv.once("error", () => done(false));
    srv.listen(port, "127.0.0.1", () => srv.close(() => done(true)));
  });
}
