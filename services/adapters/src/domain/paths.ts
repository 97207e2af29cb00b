import { realpathSync } from "node:fs";
import { isAbsolute, relative, resolve } from "node:path";

/** True when `path` is `root` or below it (both already resolved: absolute, no symlinks). */
export function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/** A manifest's command: with a `/` and not absolute, relative to the manifest's folder; a bare name is looked up on PATH. */
export function resolveCommand(command: string, dir: string): string {
  return command.includes("/") && !isAbsolute(command) ? resolve(dir, command) : command;
}

/** A manifest's root folder, relative to the manifest's folder, with its symlinks resolved; undefined when it does not exist. */
export function resolveRoot(root: string, dir: string): string | undefined {
  try {
    return realpathSync(resolve(dir, root));
  } catch {
    return undefined;
  }
}
