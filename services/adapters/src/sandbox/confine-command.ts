import type { UnshareLayer } from "./unshare.js";

export interface Wrapped {
  readonly command: string;
  readonly args: string[];
}

/**
 * One `unshare` invocation with every layer's flags (network, PID namespace), each flag once:
 * namespaces are created together, so the command needs no nesting. No layer: the command as it is.
 */
export function confineCommand(command: string, args: readonly string[], layers: readonly UnshareLayer[]): Wrapped {
  const first = layers[0];
  if (first === undefined) return { command, args: [...args] };
  const flags: string[] = [];
  for (const layer of layers) for (const f of layer.flags) if (!flags.includes(f)) flags.push(f);
  return { command: first.unshare, args: [...flags, "--", command, ...args] };
}
