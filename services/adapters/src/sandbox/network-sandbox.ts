import { spawn } from "node:child_process";
import { access, constants } from "node:fs/promises";

/** How processes are cut off from the network on this machine, if they can be. */
export type NetworkSandbox =
  | { readonly available: true; readonly method: string; readonly unshare: string; readonly flags: readonly string[] }
  | { readonly available: false; readonly reason: string };

export interface Wrapped {
  readonly command: string;
  readonly args: string[];
}

const UNSHARE_PATHS = ["/usr/bin/unshare", "/bin/unshare", "/usr/sbin/unshare"];
/** As root a new network namespace is enough; otherwise a user namespace makes it possible where the kernel allows. */
const VARIANTS: readonly (readonly string[])[] = [["--net"], ["--user", "--map-root-user", "--net"]];

/**
 * Finds out whether a process can be started in a new network namespace (only a loopback, down):
 * `unshare --net` as root, else `unshare --user --map-root-user --net`. Probed once at start.
 */
export async function probeNetworkSandbox(): Promise<NetworkSandbox> {
  if (process.platform !== "linux") return { available: false, reason: `network namespaces need Linux, this is ${process.platform}` };
  let unshare: string | undefined;
  for (const p of UNSHARE_PATHS) {
    if (await executable(p)) {
      unshare = p;
      break;
    }
  }
  if (unshare === undefined) return { available: false, reason: "no unshare binary (util-linux) found" };
  const failures: string[] = [];
  const probe = (await executable("/bin/true")) ? ["/bin/true"] : [process.execPath, "-e", ""];
  for (const flags of VARIANTS) {
    const r = await tryRun(unshare, [...flags, "--", ...probe]);
    if (r === undefined) return { available: true, method: `unshare ${flags.join(" ")}`, unshare, flags };
    failures.push(`unshare ${flags.join(" ")}: ${r}`);
  }
  return { available: false, reason: failures.join("; ") };
}

/** The command line that runs `command args` with no network. */
export function wrapNoNetwork(sandbox: Extract<NetworkSandbox, { available: true }>, command: string, args: readonly string[]): Wrapped {
  return { command: sandbox.unshare, args: [...sandbox.flags, "--", command, ...args] };
}

function executable(path: string): Promise<boolean> {
  return access(path, constants.X_OK).then(
    () => true,
    () => false,
  );
}

function tryRun(command: string, args: string[]): Promise<string | undefined> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ["ignore", "ignore", "pipe"], env: {} });
    let stderr = "";
    child.stderr.on("data", (c: Buffer) => void (stderr += c.toString("utf8")));
    child.on("error", (err) => resolve(err.message));
    child.on("close", (code) => resolve(code === 0 ? undefined : (stderr.trim().split("\n")[0] ?? `exit code ${code}`)));
  });
}
