import { access, constants } from "node:fs/promises";
import { tryRun } from "./try-run.js";

/** A working `unshare` command line prefix: the binary and the flags the probe found to work here. */
export interface UnshareLayer {
  readonly unshare: string;
  readonly flags: readonly string[];
}

export type UnshareProbe = ({ readonly available: true; readonly method: string } & UnshareLayer) | { readonly available: false; readonly reason: string };

const UNSHARE_PATHS = ["/usr/bin/unshare", "/bin/unshare", "/usr/sbin/unshare"];

/**
 * Tries each flag variant in turn (`unshare FLAGS -- true`) and keeps the first that works. Root
 * needs no user namespace; others need one where the kernel allows it, so callers list both.
 */
export async function probeUnshare(variants: readonly (readonly string[])[], what: string): Promise<UnshareProbe> {
  if (process.platform !== "linux") return { available: false, reason: `${what} need Linux, this is ${process.platform}` };
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
  for (const flags of variants) {
    const r = await tryRun({ command: unshare, args: [...flags, "--", ...probe] });
    if (r === undefined) return { available: true, method: `unshare ${flags.join(" ")}`, unshare, flags };
    failures.push(`unshare ${flags.join(" ")}: ${r}`);
  }
  return { available: false, reason: failures.join("; ") };
}

function executable(path: string): Promise<boolean> {
  return access(path, constants.X_OK).then(
    () => true,
    () => false,
  );
}
