import { spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { copyAtRef, git } from "./copy-at-ref.js";
import { formatTable, headerLine, layoutLine, metMark, numbersOf, replaceNumbers, rowKey, type Row, type RoundReport } from "./table.js";

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, "..", "..");

export interface CompareOptions {
  readonly ref: string;
  readonly quick: boolean;
  readonly rounds: number;
  /** Flags each side's rounds get (the layout): the same for both unless B's are given. */
  readonly aArgs: readonly string[];
  readonly bArgs: readonly string[];
}

interface Side {
  readonly name: "A" | "B";
  readonly describe: string;
  /** The bench entry; its services, executor, SDK and projector resolve from its own repository. */
  readonly main: string;
  readonly args: readonly string[];
  readonly reports: RoundReport[];
  failures: number;
}

/**
 * A/B of a change: this working tree (A) against a built copy at `ref` (B), one whole bench round
 * each, alternately (A, B, A, B…), each round a process of its own with its own nats-server, store
 * and ports; then one table of the medians with B/A. Both sides run this build's bench code, placed
 * in the copy so that its imports load the copy's packages: the same measurement, each side's code.
 */
export async function runCompare(o: CompareOptions): Promise<void> {
  const log = (line: string) => process.stdout.write(`${line}\n`);
  const copy = copyAtRef(repo, o.ref, log);
  const driver = join(copy.dir, "bench", "dist-compare");
  rmSync(driver, { recursive: true, force: true });
  cpSync(here, driver, { recursive: true });
  linkBenchPackages(copy.dir);
  const head = git(repo, ["rev-parse", "--short=12", "HEAD"]).trim();
  const dirty = git(repo, ["status", "--porcelain", "--untracked-files=no"]).trim() !== "";
  const sides: Side[] = [
    { name: "A", describe: `this working tree (${head}${dirty ? " + uncommitted changes" : ""})`, main: join(here, "main.js"), args: o.aArgs, reports: [], failures: 0 },
    { name: "B", describe: `${o.ref} (${copy.commit.slice(0, 12)}, ${copy.dir})`, main: join(driver, "main.js"), args: o.bArgs, reports: [], failures: 0 },
  ];
  const scratch = mkdtempSync(join(tmpdir(), "warden-bench-compare-"));
  try {
    for (let round = 1; round <= o.rounds; round++) {
      for (const side of sides) {
        log(`\n— round ${round} of ${o.rounds}, ${side.name}: ${side.describe}`);
        const out = join(scratch, `${side.name}-${round}.json`);
        const code = await runChild(side.main, [...(o.quick ? ["--quick"] : []), ...side.args, "--json", out], dirname(dirname(dirname(side.main))), o.quick ? 900 : 2_700);
        if (code === 0) side.reports.push(JSON.parse(readFileSync(out, "utf8")) as RoundReport);
        else {
          side.failures++;
          log(`round ${round} of ${side.name} failed (exit ${code}); it is left out of the medians`);
        }
      }
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  process.stdout.write(compareTable(sides, o));
}

/**
 * The bench's own third-party packages that the copy lacks (added to the bench after `ref`),
 * linked from this checkout: the bench code placed in the copy imports them, and only the
 * Warden packages must be the copy's.
 */
function linkBenchPackages(copyDir: string): void {
  const pkg = JSON.parse(readFileSync(join(repo, "bench", "package.json"), "utf8")) as { dependencies?: Record<string, string>; devDependencies?: Record<string, string> };
  for (const name of Object.keys({ ...pkg.dependencies, ...pkg.devDependencies })) {
    const target = join(copyDir, "node_modules", name);
    if (name.startsWith("@warden/") || existsSync(target)) continue;
    mkdirSync(dirname(target), { recursive: true });
    symlinkSync(join(repo, "node_modules", name), target, "dir");
  }
}

/**
 * One round in a process group of its own: past `limitS` the whole group (the round, its
 * nats-server and services) is killed, and the round counts as failed.
 */
function runChild(main: string, args: readonly string[], cwd: string, limitS: number): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [main, ...args], { cwd, stdio: ["ignore", "inherit", "inherit"], detached: true });
    const timer = setTimeout(() => {
      process.stdout.write(`round still running after ${limitS} s: killed\n`);
      if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
    }, limitS * 1000);
    child.once("error", reject);
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  if (s.length === 0) return Number.NaN;
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** The medians of each number of a row over the rounds, written into the first round's value. */
function medianRow(rows: readonly Row[]): { value: string; nums: number[] } | undefined {
  const first = rows[0];
  if (first === undefined) return undefined;
  const per = rows.map((r) => numbersOf(r.value));
  const nums = numbersOf(first.value).map((_, i) => median(per.flatMap((n) => (n[i] === undefined ? [] : [n[i]]))));
  const value = replaceNumbers(first.value, (i, token) => {
    const m = nums[i];
    return m === undefined || Number.isNaN(m) ? token : m.toFixed(token.split(".")[1]?.length ?? 0);
  });
  return { value, nums };
}

function change(a: readonly number[], b: readonly number[]): string {
  const parts = a.map((x, i) => {
    const y = b[i];
    if (y === undefined || Number.isNaN(x) || Number.isNaN(y) || x === 0) return "–";
    const pct = (y / x - 1) * 100;
    return `${pct >= 0 ? "+" : ""}${pct.toFixed(pct > -10 && pct < 10 ? 1 : 0)}%`;
  });
  return parts.length === 0 ? "" : parts.join(" / ");
}

function section(sides: readonly Side[], pick: (r: RoundReport) => readonly Row[], withTarget: boolean): string {
  // rows in A's order, then any only B printed; matched by label with its numbers blanked
  const keys: string[] = [];
  const byKey = new Map<string, { label: string; target?: Row["target"]; a: Row[]; b: Row[] }>();
  for (const side of sides) {
    for (const report of side.reports) {
      for (const row of pick(report)) {
        const key = rowKey(row.label);
        let entry = byKey.get(key);
        if (entry === undefined) {
          keys.push(key);
          byKey.set(key, (entry = { label: row.label, ...(row.target ? { target: row.target } : {}), a: [], b: [] }));
        }
        (side.name === "A" ? entry.a : entry.b).push(row);
      }
    }
  }
  const lines = keys.map((key) => {
    const e = byKey.get(key)!;
    const ma = medianRow(e.a);
    const mb = medianRow(e.b);
    const cells = [e.label];
    if (withTarget) cells.push(e.target?.text ?? "");
    cells.push(ma?.value ?? "n/a");
    if (withTarget) cells.push(ma ? metMark(e.target, ma.nums) : "");
    cells.push(mb?.value ?? "n/a");
    if (withTarget) cells.push(mb ? metMark(e.target, mb.nums) : "");
    cells.push(ma && mb ? change(ma.nums, mb.nums) : "");
    return cells;
  });
  const header = withTarget ? ["metric", "target", "A", "met?", "B", "met?", "B/A"] : ["detail", "A", "B", "B/A"];
  return formatTable(header, lines);
}

function compareTable(sides: readonly Side[], o: CompareOptions): string {
  const reports = sides.flatMap((s) => s.reports).sort((x, y) => x.at.localeCompare(y.at));
  const first = reports[0];
  const last = reports.at(-1);
  const out: string[] = ["\n"];
  if (first && last) {
    out.push(`${headerLine({ ...first, loadEnd: last.loadEnd })}\n`);
    // a copy at an older commit may report another server version only if its setup differs
    const servers = [...new Set(reports.map((r) => r.natsServer))];
    if (servers.length > 1) out.push(`nats-server versions seen: ${servers.join(", ")}\n`);
  }
  for (const s of sides) {
    out.push(`${s.name}: ${s.describe}; median of ${s.reports.length} round(s)${s.failures > 0 ? `, ${s.failures} failed` : ""}\n`);
    const first = s.reports[0];
    if (first !== undefined) out.push(`   ${layoutLine(first)}\n`);
  }
  out.push(`rounds ran alternately (A, B, …), ${o.rounds} each; B/A is B's median over A's, per number of the value; numbers in a label (e.g. half of peak) are A's first round's\n\n`);
  out.push(section(sides, (r) => r.targets, true), "\n", section(sides, (r) => r.details, false));
  return out.join("");
}

