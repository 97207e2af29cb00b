import { spawn, type ChildProcess } from "node:child_process";
import { createWriteStream, readFileSync, type WriteStream } from "node:fs";
import { join } from "node:path";

/**
 * One OS process the chaos suite can kill, freeze and start again with the same command and
 * environment, as an operator's supervisor (systemd, Kubernetes) would restart it.
 */
export interface ManagedProcess {
  readonly name: string;
  /** The current process id (changes on every restart). */
  pid(): number | undefined;
  running(): boolean;
  /** Starts it (again) and resolves once its log shows `ready`, or at once when no pattern was given. */
  start(): Promise<void>;
  /** Sends a signal; SIGKILL/SIGTERM resolve once the process is gone. */
  signal(sig: NodeJS.Signals): Promise<void>;
  /** Peak resident memory of the current process (VmHWM), in bytes; 0 when gone. */
  peakRssBytes(): number;
  /** The highest peak of any of its processes since the first start (sampled each second and before every kill). */
  maxPeakRssBytes(): number;
  /** SIGTERM, then SIGKILL after a few seconds. */
  stop(): Promise<void>;
  /** Exits nobody asked for (a crash), each restarted like a supervisor would. */
  crashes(): number;
}

export interface ProcessSpec {
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly env: NodeJS.ProcessEnv;
  /** Where stdout and stderr go (appended, across restarts). */
  readonly logDir: string;
  /** A line that says the process is up; pino services all log `"... started"`. */
  readonly ready?: RegExp;
  readonly readyTimeoutMs?: number;
  /** Restart after an exit nobody asked for, as a supervisor would (default true). */
  readonly restartOnCrash?: boolean;
}

const CRASH_RESTART_DELAY_MS = 500;
const RSS_SAMPLE_MS = 1_000;

function vmHwmBytes(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** Children still running when the test process exits (a timed-out worker) are killed with it. */
const living = new Set<ChildProcess>();
process.once("exit", () => {
  for (const c of living) c.kill("SIGKILL");
});

export function managedProcess(spec: ProcessSpec): ManagedProcess {
  let child: ChildProcess | undefined;
  let log: WriteStream | undefined;
  const logFile = join(spec.logDir, `${spec.name}.log`);
  let crashes = 0;
  // set while an exit is expected (a kill or stop we sent), so it is not mistaken for a crash
  let expectingExit = false;
  let stopped = false;
  // VmHWM dies with its process: a killed incarnation's peak is kept here
  let maxPeak = 0;
  let sampler: NodeJS.Timeout | undefined;
  const alive = () => child !== undefined && child.exitCode === null && child.signalCode === null;
  const exited = (c: ChildProcess) => new Promise<void>((r) => (c.exitCode !== null || c.signalCode !== null ? r() : c.once("exit", () => r())));

  const self: ManagedProcess = {
    name: spec.name,
    crashes: () => crashes,
    pid: () => (alive() ? child?.pid : undefined),
    running: alive,
    async start() {
      if (alive()) throw new Error(`${spec.name} is already running`);
      log ??= createWriteStream(logFile, { flags: "a" });
      const c = spawn(spec.command, [...spec.args], { env: spec.env, stdio: ["ignore", "pipe", "pipe"] });
      child = c;
      living.add(c);
      c.once("exit", () => living.delete(c));
      sampler ??= setInterval(() => self.maxPeakRssBytes(), RSS_SAMPLE_MS).unref();
      expectingExit = false;
      stopped = false;
      c.once("exit", () => {
        if (expectingExit || stopped || child !== c || spec.restartOnCrash === false) return;
        crashes++;
        setTimeout(() => {
          if (!stopped && child === c) self.start().catch(() => undefined);
        }, CRASH_RESTART_DELAY_MS);
      });
      if (spec.ready === undefined) {
        c.stdout?.pipe(log, { end: false });
        c.stderr?.pipe(log, { end: false });
        return;
      }
      const ready = spec.ready;
      const sink = log;
      let seen = "";
      await new Promise<void>((resolve, reject) => {
        const timeoutMs = spec.readyTimeoutMs ?? 30_000;
        const timer = setTimeout(() => reject(new Error(`${spec.name} showed no ${ready} within ${timeoutMs} ms (log: ${logFile})`)), timeoutMs);
        // pino services log on stdout, nats-server on stderr: either may say it is ready
        const onData = (b: Buffer) => {
          sink.write(b);
          // keep only a tail: a long-running process's log must not pile up in the test's memory
          seen = (seen + b.toString()).slice(-8192);
          if (!ready.test(seen)) return;
          clearTimeout(timer);
          for (const s of [c.stdout, c.stderr]) {
            s?.off("data", onData);
            s?.pipe(sink, { end: false });
          }
          resolve();
        };
        c.stdout?.on("data", onData);
        c.stderr?.on("data", onData);
        c.once("exit", (code, sig) => {
          clearTimeout(timer);
          reject(new Error(`${spec.name} exited (${code ?? sig}) before it was ready (log: ${logFile})`));
        });
      });
    },
    async signal(sig) {
      const c = child;
      if (c === undefined || !alive()) return;
      const ending = sig === "SIGKILL" || sig === "SIGTERM";
      if (ending) expectingExit = true;
      self.maxPeakRssBytes();
      c.kill(sig);
      if (ending) await exited(c);
    },
    peakRssBytes() {
      return vmHwmBytes(alive() ? child?.pid : undefined);
    },
    maxPeakRssBytes() {
      maxPeak = Math.max(maxPeak, self.peakRssBytes());
      return maxPeak;
    },
    async stop() {
      stopped = true;
      self.maxPeakRssBytes();
      clearInterval(sampler);
      sampler = undefined;
      const c = child;
      if (c === undefined || !alive()) return;
      // a frozen process ignores SIGTERM until it runs again
      c.kill("SIGCONT");
      const timer = setTimeout(() => c.kill("SIGKILL"), 5_000);
      c.kill("SIGTERM");
      await exited(c);
      clearTimeout(timer);
      log?.end();
      log = undefined;
    },
  };
  return self;
}

/**
 * Starts a process, trying again when it dies before it is ready: on a loaded 2-core machine a
 * service can time out connecting at boot, and a supervisor would simply start it again.
 */
export async function startPatiently(p: ManagedProcess, attempts = 3): Promise<void> {
  for (let i = 1; ; i++) {
    try {
      return await p.start();
    } catch (err) {
      if (i >= attempts) throw err;
      if (p.running()) await p.signal("SIGKILL");
    }
  }
}
