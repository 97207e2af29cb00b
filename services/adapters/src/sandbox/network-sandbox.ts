import { confineCommand, type Wrapped } from "./confine-command.js";
import { probeUnshare, type UnshareProbe } from "./unshare.js";

/** How processes are cut off from the network on this machine, if they can be. */
export type NetworkSandbox = UnshareProbe;

/** As root a new network namespace is enough; otherwise a user namespace makes it possible where the kernel allows. */
const VARIANTS: readonly (readonly string[])[] = [["--net"], ["--user", "--map-root-user", "--net"]];

/**
 * Finds out whether a process can be started in a new network namespace (only a loopback, down):
 * `unshare --net` as root, else `unshare --user --map-root-user --net`. Probed once at start.
 */
export function probeNetworkSandbox(): Promise<NetworkSandbox> {
  return probeUnshare(VARIANTS, "network namespaces");
}

/** The command line that runs `command args` with no network. */
export function wrapNoNetwork(sandbox: Extract<NetworkSandbox, { available: true }>, command: string, args: readonly string[]): Wrapped {
  return confineCommand(command, args, [sandbox]);
}
