import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { TICKS_PER_SECOND } from "./process-tree.js";

const CLI = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "cli", "dist", "main.js");

export interface CliCpu {
  /** user + sys of the first run, which also fills V8's compile cache. */
  readonly firstMs: number;
  /** Median user + sys of the runs after it. */
  readonly medianMs: number;
  /** A run that did not exit 0 (e.g. no Warden reachable) is still measured, and said. */
  readonly exitCodes: readonly (number | null)[];
}

/**
 * CPU time (user + sys) of `warden ARGS`, each run a child process. It is read from the CPU time
 * of this process's reaped children (/proc/self/stat), so the CLI runs uninstrumented; no other
 * child of this process may exit meanwhile. undefined where there is no /proc.
 */
export async function cliCpu(args: readonly string[], env: NodeJS.ProcessEnv, runs: number): Promise<CliCpu | undefined> {
  if (childrenCpuMs() === undefined) return undefined;
  const costs: number[] = [];
  const exitCodes: (number | null)[] = [];
  for (let i = 0; i <= runs; i++) {
    const before = childrenCpuMs() ?? 0;
    exitCodes.push(await run(args, env));
    costs.push((childrenCpuMs() ?? 0) - before);
  }
  const [firstMs = 0, ...rest] = costs;
  const sorted = [...rest].sort((a, b) => a - b);
  return { firstMs, medianMs: sorted[Math.floor(sorted.length / 2)] ?? 0, exitCodes };
}

function run(args: readonly string[], env: NodeJS.ProcessEnv): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, stdio: "ignore" });
    child.once("error", reject);
    child.once("exit", (code) => resolve(code));
  });
}

function childrenCpuMs(): number | undefined {
  try {
    const stat = readFileSync("/proc/self/stat", "utf8");
    // after "pid (comm) ", field 3 (state) is index 0: cutime (16) and cstime (17) are 13 and 14
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(fields[13]) + Number(fields[14])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

export function cliCpuText(r: CliCpu | undefined): string {
  if (r === undefined) return "n/a (no /proc)";
  const failed = r.exitCodes.filter((c) => c !== 0);
  return `${r.medianMs.toFixed(0)} ms (first run ${r.firstMs.toFixed(0)} ms)${failed.length > 0 ? `; exit codes ${r.exitCodes.join(",")}` : ""}`;
}
