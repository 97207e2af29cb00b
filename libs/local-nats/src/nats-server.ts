import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";

export const NATS_INSTALL_HINT =
  "install nats-server (Debian/Ubuntu: `apt-get install nats-server`; or download it from https://github.com/nats-io/nats-server/releases), set NATS_SERVER_BIN to its path, or set NATS_URL to a running server with JetStream";

/**
 * Finds a nats-server binary: `NATS_SERVER_BIN` when set (only that one: a named binary that is
 * missing is not replaced by another release), else on PATH or in /usr/sbin, /usr/local/bin.
 */
export function findNatsServerBinary(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const named = env["NATS_SERVER_BIN"];
  if (named !== undefined && named !== "") return existsSync(named) ? named : undefined;
  const which = spawnSync("sh", ["-c", "command -v nats-server"], { encoding: "utf8" });
  const onPath = which.stdout.trim();
  if (which.status === 0 && onPath) return onPath;
  return ["/usr/sbin/nats-server", "/usr/local/bin/nats-server", "/usr/bin/nats-server"].find((p) => existsSync(p));
}

/**
 * The pids of the nats-server processes running in `dir` or a folder under it (a server runs in
 * the folder of its config): which server a home started, found through /proc (Linux).
 */
export function natsServersIn(dir: string): number[] {
  const inside = (cwd: string) => cwd === dir || cwd.startsWith(`${dir}/`);
  return readdirSync("/proc")
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        return readFileSync(`/proc/${p}/cmdline`, "utf8").includes("nats-server") && inside(readlinkSync(`/proc/${p}/cwd`));
      } catch {
        // gone meanwhile
        return false;
      }
    })
    .map(Number);
}

/** What `nats-server --version` prints (`nats-server: v2.9.10`), or undefined when no binary answers. */
export function natsServerVersionText(binary: string | undefined = findNatsServerBinary()): string | undefined {
  if (binary === undefined) return undefined;
  const run = spawnSync(binary, ["--version"], { encoding: "utf8", timeout: 10_000 });
  const text = `${run.stdout ?? ""}${run.stderr ?? ""}`.trim();
  return run.status === 0 && text !== "" ? text : undefined;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      const port = typeof addr === "object" && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

export interface LocalNatsServer {
  readonly url: string;
  readonly storeDir: string;
  readonly process: ChildProcess;
  stop(): Promise<void>;
}

export interface StartNatsOptions {
  readonly binary?: string;
  /** Store dir; a temp dir (removed on stop) when absent. */
  readonly storeDir?: string;
  readonly port?: number;
  /**
   * A configuration file (operator-mode auth, written by @warden/identity); it names the store
   * dir and port itself, so `port` must match it and `storeDir` is only reported.
   */
  readonly configFile?: string;
  /** Appends the server's log to this file (to see permission violations while debugging). */
  readonly logFile?: string;
  /** More command-line options after the configuration file's (`--name`, `-p`: they override it). */
  readonly args?: readonly string[];
}

/** Starts a single-node nats-server with JetStream on loopback and waits until it accepts clients. */
export async function startNatsServer(opts: StartNatsOptions = {}): Promise<LocalNatsServer> {
  const binary = opts.binary ?? findNatsServerBinary();
  if (binary === undefined) throw new Error(`nats-server not found: ${NATS_INSTALL_HINT}`);
  const port = opts.port ?? (await freePort());
  const tempStore = opts.storeDir === undefined;
  const storeDir = opts.storeDir ?? mkdtempSync(join(tmpdir(), "warden-nats-"));
  mkdirSync(storeDir, { recursive: true });
  // started in its config's folder with the bare file name and no environment of ours: its command
  // line and environment (world-readable in /proc) name neither WARDEN_HOME nor any credentials
  const args = [...(opts.configFile !== undefined ? ["-c", basename(opts.configFile)] : ["-js", "-a", "127.0.0.1", "-p", String(port), "-sd", storeDir]), ...(opts.args ?? [])];
  const child = spawn(binary, args, {
    cwd: opts.configFile !== undefined ? dirname(resolve(opts.configFile)) : storeDir,
    env: serverEnv(),
    stdio: ["ignore", "ignore", "pipe"],
  });
  let log = "";
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`nats-server did not start within 10s:\n${log}`)), 10_000);
    child.stderr?.on("data", (chunk: Buffer) => {
      log += chunk.toString();
      if (log.includes("Server is ready")) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`nats-server exited with code ${code}:\n${log}`));
    });
  });
  child.stderr?.removeAllListeners("data");
  if (opts.logFile !== undefined) child.stderr?.pipe(createWriteStream(opts.logFile, { flags: "a" }));
  else child.stderr?.resume();
  child.removeAllListeners("exit");
  return {
    url: `nats://127.0.0.1:${port}`,
    storeDir,
    process: child,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once("exit", r));
        child.kill("SIGTERM");
        await exited;
      }
      if (tempStore) rmSync(storeDir, { recursive: true, force: true });
    },
  };
}

/** Ports tried before giving up, when each one found free is taken before the server binds it. */
export const FREE_PORT_ATTEMPTS = 5;

/**
 * Starts nats-server on a port found free, and on another when that one was taken before the
 * server bound it (by another process, or as an outgoing connection's ephemeral port: the same
 * range). `configFor` writes the server's configuration file for a port, which names it.
 */
export async function startNatsServerOnFreePort(
  opts: Omit<StartNatsOptions, "port" | "configFile"> & {
    readonly configFor?: (port: number) => Promise<string>;
    /** Where ports come from (default `freePort`). */
    readonly nextPort?: () => Promise<number>;
  },
): Promise<LocalNatsServer> {
  const { configFor, nextPort = freePort, ...rest } = opts;
  for (let attempt = 1; ; attempt++) {
    const port = await nextPort();
    const configFile = configFor === undefined ? undefined : await configFor(port);
    try {
      return await startNatsServer({ ...rest, port, ...(configFile === undefined ? {} : { configFile }) });
    } catch (err) {
      const message = (err as Error).message;
      if (!message.includes("address already in use")) throw err;
      if (attempt >= FREE_PORT_ATTEMPTS) throw new Error(`nats-server found no free port in ${FREE_PORT_ATTEMPTS} attempts (the last: ${message})`);
    }
  }
}

/** What nats-server needs of the environment: nothing but where programs are and the time zone. */
function serverEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env["PATH"] ?? "/usr/bin:/bin" };
  if (process.env["TZ"] !== undefined) env["TZ"] = process.env["TZ"];
  return env;
}
