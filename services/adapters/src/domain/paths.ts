import { isAbsolute, relative } from "node:path";

/** True when `path` is `root` or below it (both already resolved: absolute, no symlinks). */
export function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}
