import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

export interface ServiceProcess {
  readonly name: string;
  readonly child: ChildProcess;
}

/**
 * Starts each Warden service as its own process, the way an operator would; `entry` is relative to
 * the repository this file was built in (or absolute).
 */
export function spawnService(name: string, entry: string, env: NodeJS.ProcessEnv, profileDir?: string): ServiceProcess {
  const flags = profileDir ? ["--cpu-prof", "--cpu-prof-dir", profileDir, "--cpu-prof-name", `${name}.cpuprofile`] : [];
  const child = spawn(process.execPath, [...flags, resolve(root, entry)], {
    env: { ...process.env, LOG_LEVEL: process.env["BENCH_LOG_LEVEL"] ?? "warn", ...env },
    stdio: ["ignore", process.env["BENCH_LOG_LEVEL"] ? "inherit" : "ignore", "inherit"],
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
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // the fields after the command name, which may itself hold spaces: utime and stime are the 12th and 13th
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}
