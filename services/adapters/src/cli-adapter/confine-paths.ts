import { lstatSync, realpathSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { fail, ok, type Outcome } from "@warden/contracts/errors";
import type { Args } from "../adapter-tool.js";
import type { PathArgs } from "../domain/path-args.js";
import { isInside } from "../domain/paths.js";
import { scalarText } from "../domain/template.js";

/**
 * The args with every path-typed value replaced by its real path (relative ones against the
 * working directory), each checked to lie inside a root. The command gets the path that was
 * checked, not the one that was asked for, so a symlink cannot be re-read differently later.
 */
export function confinePathArgs(args: Args, paths: PathArgs, cwd: string, roots: readonly string[]): Outcome<Args> {
  const out: Record<string, unknown> = { ...args };
  for (const name of paths.single) {
    const value = args[name];
    if (value === undefined || value === null) continue;
    const r = confinePath(name, value, cwd, roots);
    if (!r.ok) return r;
    out[name] = r.value;
  }
  for (const name of paths.lists) {
    const value = args[name];
    if (!Array.isArray(value)) continue;
    const items: string[] = [];
    for (const [i, item] of value.entries()) {
      const r = confinePath(`${name}[${i}]`, item, cwd, roots);
      if (!r.ok) return r;
      items.push(r.value);
    }
    out[name] = items;
  }
  return ok(out);
}

/** The real paths of confined args (as {@link confinePathArgs} made them), in the args' order. */
export function confinedPaths(confined: Args, paths: PathArgs): string[] {
  const out: string[] = [];
  for (const name of paths.single) {
    const value = confined[name];
    if (typeof value === "string") out.push(value);
  }
  for (const name of paths.lists) {
    const value = confined[name];
    if (Array.isArray(value)) for (const item of value) if (typeof item === "string") out.push(item);
  }
  return out;
}

/** One path: resolved with symlinks; one that does not exist yet resolves through its parent folder. */
export function confinePath(name: string, value: unknown, cwd: string, roots: readonly string[]): Outcome<string> {
  const text = scalarText(name, value);
  if (!text.ok) return text;
  const wanted = resolve(cwd, text.value);
  const real = realPath(name, wanted);
  if (!real.ok) return real;
  if (!roots.some((root) => isInside(root, real.value))) {
    const shown = real.value === wanted ? wanted : `${wanted} (really ${real.value})`;
    return fail("INVALID_ARGS", `${name}: ${shown} is outside the tool's roots (${roots.join(", ")}); refused before running`);
  }
  return ok(real.value);
}

function realPath(name: string, wanted: string): Outcome<string> {
  try {
    return ok(realpathSync(wanted));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") {
      return fail("INVALID_ARGS", `${name}: ${wanted} cannot be resolved (${(err as NodeJS.ErrnoException).code ?? "error"})`);
    }
  }
  // a link whose target is missing would be followed on write, to wherever it points
  if (exists(wanted)) return fail("INVALID_ARGS", `${name}: ${wanted} is a symbolic link to a path that does not exist; refused before running`);
  try {
    return ok(join(realpathSync(dirname(wanted)), basename(wanted)));
  } catch {
    return fail("INVALID_ARGS", `${name}: neither ${wanted} nor its folder exists`);
  }
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}
