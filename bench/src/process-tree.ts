import { readdirSync, readFileSync } from "node:fs";

/** USER_HZ: what Linux counts a process's CPU time in (/proc/PID/stat). */
export const TICKS_PER_SECOND = 100;

/** What the bench reads of one line of /proc/PID/stat. */
export interface ProcStat {
  readonly pid: number;
  readonly ppid: number;
  /** The command name (at most 15 characters, e.g. `nats-server`, `node`). */
  readonly comm: string;
  /** utime + stime, in ticks of {@link TICKS_PER_SECOND}. */
  readonly cpuTicks: number;
}

/**
 * One /proc/PID/stat line, or undefined when it is not one. The command name sits in parentheses
 * and may itself hold spaces and parentheses, so the fields are counted from its last `)`: state,
 * ppid, …, utime and stime are the 1st, 2nd, 12th and 13th after it.
 */
export function parseProcStat(text: string): ProcStat | undefined {
  const open = text.indexOf("(");
  const close = text.lastIndexOf(")");
  if (open < 0 || close < open) return undefined;
  const pid = Number(text.slice(0, open).trim());
  const fields = text.slice(close + 2).split(" ");
  const ppid = Number(fields[1]);
  const cpuTicks = Number(fields[11]) + Number(fields[12]);
  if (!Number.isInteger(pid) || pid <= 0 || !Number.isInteger(ppid) || !Number.isFinite(cpuTicks)) return undefined;
  return { pid, ppid, comm: text.slice(open + 1, close), cpuTicks };
}

/** Every process below `root` in the table (children, their children, …), nearest first. */
export function descendantsOf(root: number, table: readonly ProcStat[]): ProcStat[] {
  const found: ProcStat[] = [];
  const parents = [root];
  const seen = new Set(parents);
  while (parents.length > 0) {
    const parent = parents.shift()!;
    for (const p of table) {
      if (p.ppid !== parent || seen.has(p.pid)) continue;
      seen.add(p.pid);
      found.push(p);
      parents.push(p.pid);
    }
  }
  return found;
}

/** One process's stat line now, or undefined when it is gone (or there is no /proc). */
export function readProcStat(pid: number): ProcStat | undefined {
  try {
    return parseProcStat(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return undefined;
  }
}

/** Every process on the machine now (those that exit while it is read are left out). */
export function readProcTable(): ProcStat[] {
  let pids: string[];
  try {
    pids = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
  return pids.flatMap((pid) => readProcStat(Number(pid)) ?? []);
}
