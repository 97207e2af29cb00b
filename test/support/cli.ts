import { execFile, spawn } from "node:child_process";
import { join } from "node:path";
import { runCli } from "@warden/cli/run-cli";
import { eventually } from "@warden/testing";

/** The built CLI's entry, what `warden` on PATH runs: its process glue (exit code, EPIPE, signals, stdin prompt) around `runCli`. */
export const WARDEN_MAIN = join(import.meta.dirname, "../../cli/dist/main.js");

export interface CliRan {
  readonly code: number;
  /** Everything the command wrote to stdout, each line ending in a newline, as a process writes it. */
  readonly out: string;
  readonly err: string;
}

/** Where a command runs: the WARDEN_HOME it reads, more environment (NATS_URL, NATS_CREDS, …) and its working directory. */
export interface WardenAt {
  readonly home: string;
  /** Set on top of the rest; `undefined` takes a variable of this process's environment away. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly cwd?: string;
}

/** This process's environment less what would pick another Warden or identity, then the home, silent logs and `at.env`. */
export function wardenEnv(at: WardenAt): NodeJS.ProcessEnv {
  const { NATS_URL: _url, NATS_CREDS: _creds, WARDEN_HOME: _home, WARDEN_PRINCIPAL: _principal, ...rest } = process.env;
  const env: NodeJS.ProcessEnv = { ...rest, WARDEN_HOME: at.home, LOG_LEVEL: "silent" };
  for (const [name, value] of Object.entries(at.env ?? {})) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}

/**
 * Runs one warden command in this process, as bin/main.js runs it less the process glue: a command
 * costs no node start-up (0.5-2 s of CPU a process). No one can answer a prompt (as when stdin is
 * not a terminal) and no signal comes: a command that waits for one (`up`, `inbox`) needs
 * {@link spawnWarden}.
 */
export async function runWardenAt(at: WardenAt, ...args: string[]): Promise<CliRan> {
  let out = "";
  let err = "";
  const code = await runCli(args, {
    env: wardenEnv(at),
    cwd: at.cwd ?? process.cwd(),
    out: (text) => void (out += `${text}\n`),
    err: (text) => void (err += `${text}\n`),
    stopSignal: () => new Promise<string>(() => undefined),
  });
  return { code, out, err };
}

/** Runs the built warden CLI as an operator or auditor would, against the home `home` (never the caller's NATS_URL / NATS_CREDS), in this process. */
export function runWarden(home: string, ...args: string[]): Promise<CliRan> {
  return runWardenAt({ home }, ...args);
}

/** Runs the built CLI as its own node process, for a test whose subject is the process: its exit code, stdin, signals, what else reaches stdout/stderr. */
export function spawnWarden(at: WardenAt, ...args: string[]): Promise<CliRan> {
  return runCommand(at, process.execPath, WARDEN_MAIN, ...args);
}

/**
 * Runs `file` (node, npx, npm) with the environment and working directory a command gets from
 * `at`. A process killed (its timeout) or that could not start answers code -1, which no exit
 * code is.
 */
export function runCommand(at: WardenAt, file: string, ...args: string[]): Promise<CliRan> {
  return new Promise((done) => {
    execFile(file, args, { env: wardenEnv(at), cwd: at.cwd ?? process.cwd(), timeout: 60_000, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err === null ? 0 : typeof err.code === "number" ? err.code : -1;
      done({ code, out: stdout, err: stderr });
    });
  });
}

/** What a command printed to stdout, as the one JSON document `--json` promises; else throws with what it printed. */
export function outJson(ran: CliRan): Record<string, unknown> {
  try {
    return JSON.parse(ran.out) as Record<string, unknown>;
  } catch {
    throw new Error(`stdout is not one JSON document (exit ${ran.code}):\n${ran.out}\nstderr:\n${ran.err}`);
  }
}

/** What `warden up --json` prints once everything runs (the fields tests read). */
export interface UpSummary {
  readonly ok: boolean;
  readonly url: string;
  readonly home: string;
  readonly services: string[];
  readonly tools: string[];
  readonly skills?: string[];
  readonly identities: string[];
  /** Where /healthz, /readyz and /metrics are served, with WARDEN_HEALTH_PORT. */
  readonly health?: string;
}

/** `warden up` running as its own process. */
export interface RunningUp {
  readonly summary: UpSummary;
  /** SIGTERM, as a terminal's Ctrl-C or a service manager sends it; resolves with the exit code once it has drained. */
  stop(): Promise<number | null>;
  /** SIGKILL if it still runs: for a `finally` after a failed test. */
  kill(): void;
}

/** Starts `warden up ...args --json` as a process and waits (a minute at most) for the summary it prints once everything runs. */
export async function startWardenUp(at: WardenAt, ...args: string[]): Promise<RunningUp> {
  const child = spawn(process.execPath, [WARDEN_MAIN, "up", ...args, "--json"], { cwd: at.cwd ?? process.cwd(), env: wardenEnv(at) });
  const kill = () => void (child.exitCode === null && child.signalCode === null && child.kill("SIGKILL"));
  let out = "";
  let err = "";
  child.stdout.on("data", (c: Buffer) => (out += c.toString()));
  child.stderr.on("data", (c: Buffer) => (err += c.toString()));
  try {
    const summary = await eventually(() => {
      if (child.exitCode !== null) throw new Error(`warden up exited ${child.exitCode} before it printed its summary:\n${err}`);
      return JSON.parse(out) as UpSummary;
    }, 60_000, 100);
    const stop = () => {
      const exited = new Promise<number | null>((done) => child.once("exit", (code) => done(code)));
      child.kill("SIGTERM");
      return exited;
    };
    return { summary, stop, kill };
  } catch (err) {
    kill();
    throw err;
  }
}
