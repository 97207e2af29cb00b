import { spawnSync } from "node:child_process";
import { createServer } from "node:net";
import { resolve } from "node:path";
import { findNatsServerBinary, freePort, NATS_INSTALL_HINT, startNatsServer, type LocalNatsServer } from "@warden/bus";
import { CliError } from "../errors.js";
import type { CommandIo } from "../io.js";

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
export async function provisionNats(io: CommandIo): Promise<ProvisionedNats> {
  const url = io.env["NATS_URL"];
  if (url !== undefined && url !== "") return { url };
  const binary = findNatsServerBinary() ?? installWithApt(io);
  if (binary === undefined) throw new CliError("UNAVAILABLE", `no nats-server found: ${NATS_INSTALL_HINT}`);
  const port = (await isPortFree(DEFAULT_NATS_PORT)) ? DEFAULT_NATS_PORT : await freePort();
  const server = await startNatsServer({ binary, storeDir: resolve(io.cwd, ".warden/nats"), port });
  return { url: server.url, server };
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
