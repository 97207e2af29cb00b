import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { readProcStat, TICKS_PER_SECOND } from "./process-tree.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

export interface ServiceProcess {
  readonly name: string;
  readonly child: ChildProcess;
}

export interface SpawnOptions {
  /** Arguments after the entry (e.g. `up --nats-port 0` for the CLI). */
  readonly args?: readonly string[];
  /** Write a V8 CPU profile of the process into this folder when it exits. */
  readonly profileDir?: string;
  /** Read its stdout (a piped stream on `child.stdout`) instead of showing or dropping it. */
  readonly pipeStdout?: boolean;
}

/**
 * Starts each Warden service as its own process, the way an operator would; `entry` is relative to
 * the repository this file was built in (or absolute). `env` is laid over this process's; a key
 * set to undefined there is left out.
 */
export function spawnService(name: string, entry: string, env: NodeJS.ProcessEnv, o: SpawnOptions = {}): ServiceProcess {
  const flags = o.profileDir ? ["--cpu-prof", "--cpu-prof-dir", o.profileDir, "--cpu-prof-name", `${name}.cpuprofile`] : [];
  const child = spawn(process.execPath, [...flags, resolve(root, entry), ...(o.args ?? [])], {
    env: { ...process.env, LOG_LEVEL: process.env["BENCH_LOG_LEVEL"] ?? "warn", ...env },
    stdio: ["ignore", o.pipeStdout ? "pipe" : process.env["BENCH_LOG_LEVEL"] ? "inherit" : "ignore", "inherit"],
  });
  return { name, child };
}

export function rssBytes(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

export async function stopAll(procs: readonly ServiceProcess[]): Promise<void> {
  await Promise.all(
    procs.map(
      (p) =>
        new Promise<void>((resolve) => {
          if (p.child.exitCode !== null) return resolve();
          const t = setTimeout(() => p.child.kill("SIGKILL"), 5_000);
          p.child.once("exit", () => {
            clearTimeout(t);
            resolve();
          });
          p.child.kill("SIGTERM");
        }),
    ),
  );
}

/** CPU seconds (user + system) a process has used so far, from /proc (0 when it is gone). */
export function cpuSeconds(pid: number | undefined): number {
  if (pid === undefined) return 0;
  return (readProcStat(pid)?.cpuTicks ?? 0) / TICKS_PER_SECOND;
}
