import { probeUnshare, type UnshareProbe } from "./unshare.js";

/** Whether a process can be started as PID 1 of a namespace of its own, so that all it starts dies with it. */
export type PidNamespace = UnshareProbe;

/**
 * `--fork` makes the command PID 1 of the new namespace: when it dies the kernel kills every
 * process left in the namespace, setsid or not. `--kill-child` kills it when unshare is killed.
 */
const VARIANTS: readonly (readonly string[])[] = [
  ["--pid", "--fork", "--kill-child"],
  ["--user", "--map-root-user", "--pid", "--fork", "--kill-child"],
];

/** Probed once at start, like the network sandbox. */
export function probePidNamespace(): Promise<PidNamespace> {
  return probeUnshare(VARIANTS, "PID namespaces");
}
