import { existsSync, lstatSync, readlinkSync, realpathSync, statSync } from "node:fs";
import { dirname, join, resolve, sep } from "node:path";
import { tryRun } from "./try-run.js";

/**
 * Where a tool's process runs: bubblewrap (Debian's `bubblewrap`) with its own user, mount, PID,
 * IPC and UTS namespaces (and network, unless the tool declares `network: host`). Its file system
 * is the system's read-only program folders, a few public files of /etc, its own /proc, /dev and
 * /tmp, its declared roots and what its command needs to start; WARDEN_HOME, the secrets file and
 * every key folder are hidden even where they lie inside one of those.
 */
export type ToolSandbox =
  | { readonly available: true; readonly method: string; readonly bwrap: string; readonly uid?: number; readonly gid?: number }
  | { readonly available: false; readonly reason: string };

export interface SandboxedProcess {
  readonly command: string;
  readonly args: readonly string[];
  /** Folders (or files) it may change: the tool's roots. */
  readonly writable: readonly string[];
  /** Folders (or files) it may read: its command, the interpreter, their packages. */
  readonly readable: readonly string[];
  readonly cwd: string;
  readonly network: "none" | "host";
  /** Paths never shown, even inside a root: WARDEN_HOME, the secrets file, key folders, credentials. */
  readonly hidden: readonly string[];
}

export interface SandboxLine {
  readonly command: string;
  readonly args: string[];
  /** bwrap's own working directory (the command's is set with `--chdir`). */
  readonly cwd: string;
  readonly uid?: number;
  readonly gid?: number;
  /**
   * bwrap's own arguments, NUL-separated, to be written to the child's fd 3 (`--args 3`): the
   * sandbox's init process then shows `bwrap --args 3 -- <command>` in its /proc cmdline, nothing of the layout.
   */
  readonly fd3?: Buffer;
}

const BWRAP_PATHS = ["/usr/bin/bwrap", "/bin/bwrap", "/usr/local/bin/bwrap"];
/** Program folders every process needs; on merged-/usr systems the top-level ones are symlinks. */
const SYSTEM_DIRS = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt"];
/** Public files of /etc that dynamic linking, name lookup and TLS read; nothing secret (no shadow, no ssh keys). */
const ETC_FILES = [
  "/etc/alternatives",
  "/etc/ld.so.cache",
  "/etc/ld.so.conf",
  "/etc/ld.so.conf.d",
  "/etc/ssl/certs",
  "/etc/ca-certificates",
  "/etc/resolv.conf",
  "/etc/hosts",
  "/etc/nsswitch.conf",
  "/etc/passwd",
  "/etc/group",
  "/etc/localtime",
  "/etc/os-release",
  "/etc/mime.types",
];

/**
 * Finds bwrap and checks that it can start a process here, as the uid given (root drops to it:
 * the tool is then an unprivileged user outside its namespace too). Probed once at start.
 */
export async function probeToolSandbox(o: { readonly uid?: number; readonly gid?: number } = {}): Promise<ToolSandbox> {
  if (process.platform !== "linux") return { available: false, reason: `the tools' sandbox needs Linux, this is ${process.platform}` };
  const bwrap = BWRAP_PATHS.find((p) => existsSync(p));
  if (bwrap === undefined) return { available: false, reason: "no bwrap found (install Debian's bubblewrap package)" };
  const sandbox: ToolSandbox = { available: true, method: "bubblewrap", bwrap, ...(o.uid === undefined ? {} : { uid: o.uid, gid: o.gid ?? o.uid }) };
  const line = sandboxLine(sandbox, { command: "/bin/true", args: [], writable: [], readable: [], cwd: "/", network: "none", hidden: [] });
  const failed = await tryRun(line);
  if (failed !== undefined) return { available: false, reason: `bwrap cannot start a process here (${failed}): user namespaces may be disabled` };
  return sandbox;
}

/** The bwrap command line that runs `p` confined. */
export function sandboxLine(sandbox: Extract<ToolSandbox, { available: true }>, p: SandboxedProcess): SandboxLine {
  const args = ["--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"];
  if (p.network === "none") args.push("--unshare-net");
  args.push("--die-with-parent", "--new-session", "--cap-drop", "ALL");
  args.push(...systemArgs());
  args.push("--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp");
  // an ancestor is mounted before what lies inside it, so a nested root keeps its own mode
  const binds = [...p.readable.map((path) => ({ path, rw: false })), ...p.writable.map((path) => ({ path, rw: true }))]
    .map((b) => ({ ...b, path: real(b.path) }))
    .filter((b, i, all) => b.path !== undefined && all.findIndex((o) => o.path === b.path && o.rw === b.rw) === i)
    .sort((a, b) => a.path!.split(sep).length - b.path!.split(sep).length);
  for (const b of binds) args.push(b.rw ? "--bind" : "--ro-bind", b.path!, b.path!);
  const shown = ["/usr", "/etc", "/opt", ...binds.map((b) => b.path!)];
  for (const h of p.hidden) {
    const path = real(h);
    if (path === undefined || !shown.some((s) => path === s || path.startsWith(s + sep))) continue;
    // a folder becomes an empty tmpfs, a file /dev/null: nothing of either can be read or written
    if (statSync(path).isDirectory()) args.push("--tmpfs", path);
    else args.push("--ro-bind", "/dev/null", path);
  }
  args.push("--chdir", p.cwd);
  const fd3 = Buffer.from(args.map((a) => `${a}\0`).join(""), "utf8");
  return { command: sandbox.bwrap, args: ["--args", "3", "--", p.command, ...p.args], fd3, cwd: "/", ...(sandbox.uid === undefined ? {} : { uid: sandbox.uid, gid: sandbox.gid ?? sandbox.uid }) };
}

/**
 * What a command needs to start besides the system: its own folder, the interpreter running us (a
 * node script's `#!/usr/bin/env node` finds the same node) and the `node_modules` folders above
 * each, where its imports resolve.
 */
export function startupPaths(paths: readonly string[], base = process.cwd()): string[] {
  const out = new Set<string>();
  const add = (p: string) => {
    const r = real(p);
    if (r === undefined) return;
    const dir = statSync(r).isDirectory() ? r : dirname(r);
    out.add(dir);
    for (let at = dir; ; at = dirname(at)) {
      const modules = join(at, "node_modules");
      if (existsSync(modules)) out.add(real(modules) ?? modules);
      if (dirname(at) === at) break;
    }
  };
  // a literal argv element of the manifest that names an existing file (a script) is read too
  for (const p of paths) if (p.includes("/") && !p.includes("{") && existsSync(resolve(base, p))) add(resolve(base, p));
  add(dirname(dirname(realpathSync(process.execPath))));
  return [...out];
}

let system: readonly string[] | undefined;

/** The binds of the system's program folders and public /etc files: the same for every tool, looked up once per process. */
function systemArgs(): readonly string[] {
  if (system !== undefined) return system;
  const args: string[] = [];
  for (const dir of SYSTEM_DIRS) systemEntry(dir, args);
  for (const f of ETC_FILES) if (existsSync(f)) args.push("--ro-bind", f, f);
  system = args;
  return system;
}

function systemEntry(dir: string, args: string[]): void {
  let st;
  try {
    st = lstatSync(dir);
  } catch {
    return;
  }
  if (st.isSymbolicLink()) args.push("--symlink", readlinkSync(dir), dir);
  else if (st.isDirectory()) args.push("--ro-bind", dir, dir);
}

function real(path: string): string | undefined {
  try {
    return realpathSync(resolve(path));
  } catch {
    return undefined;
  }
}
