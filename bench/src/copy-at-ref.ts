import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const BUILT_STAMP = ".warden-bench-built";

export interface RepoCopy {
  readonly dir: string;
  readonly commit: string;
}

/**
 * A built copy of the repository at `ref`: a detached git worktree in the temp dir, `npm ci`, then
 * `npx turbo run build`. Kept by commit hash, so the next compare against the same commit starts
 * at once. It is built under a name of its own and moved into place when done, so an interrupted
 * build, or two benches building the same commit, never leave a half-built copy behind that name.
 */
export function copyAtRef(repo: string, ref: string, log: (line: string) => void): RepoCopy {
  const commit = git(repo, ["rev-parse", "--verify", `${ref}^{commit}`]).trim();
  const parent = join(tmpdir(), "warden-bench-copies");
  const dir = join(parent, commit);
  if (existsSync(join(dir, BUILT_STAMP))) {
    log(`copy of ${ref} (${commit.slice(0, 12)}) already built in ${dir}`);
    return { dir, commit };
  }
  mkdirSync(parent, { recursive: true });
  const building = `${dir}.building-${process.pid}`;
  log(`building a copy of ${ref} (${commit.slice(0, 12)}) in ${building}: git worktree, npm ci, turbo build…`);
  git(repo, ["worktree", "add", "--detach", building, commit]);
  try {
    run("npm", ["ci", "--no-audit", "--no-fund", "--loglevel=error"], building);
    run("npx", ["turbo", "run", "build", "--output-logs=errors-only"], building);
    writeFileSync(join(building, BUILT_STAMP), `${commit}\n`);
    if (existsSync(dir)) {
      // a half-built copy of an earlier run (no stamp), or one another bench just finished
      if (existsSync(join(dir, BUILT_STAMP))) {
        removeWorktree(repo, building);
        return { dir, commit };
      }
      removeWorktree(repo, dir);
    }
    git(repo, ["worktree", "move", building, dir]);
  } catch (err) {
    removeWorktree(repo, building);
    throw err;
  }
  return { dir, commit };
}

function removeWorktree(repo: string, dir: string): void {
  spawnSync("git", ["-C", repo, "worktree", "remove", "--force", dir], { stdio: "ignore" });
  rmSync(dir, { recursive: true, force: true });
  spawnSync("git", ["-C", repo, "worktree", "prune"], { stdio: "ignore" });
}

export function git(repo: string, args: readonly string[]): string {
  const r = spawnSync("git", ["-C", repo, ...args], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`git ${args.join(" ")} failed: ${r.stderr.trim()}`);
  return r.stdout;
}

function run(cmd: string, args: readonly string[], cwd: string): void {
  // output goes to the terminal: a first build takes minutes and its errors are the operator's to read
  const r = spawnSync(cmd, args, { cwd, stdio: ["ignore", "inherit", "inherit"] });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} failed in ${cwd} (exit ${r.status ?? r.signal})`);
}
