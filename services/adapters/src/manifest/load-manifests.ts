import { readdir, readFile } from "node:fs/promises";
import { dirname, extname, join, resolve } from "node:path";
import type { Manifest } from "./manifest-schema.js";
import { parseManifest } from "./parse-manifest.js";

/** A valid manifest and where it was read from (relative paths in it are relative to `dir`). */
export interface LoadedManifest {
  readonly manifest: Manifest;
  readonly file: string;
  readonly dir: string;
}

export const MANIFEST_EXTENSIONS = [".yaml", ".yml", ".json"] as const;

/** A manifest (or a folder of them) that cannot be used; the message names every file, line and path. */
export class ManifestError extends Error {
  override readonly name = "ManifestError";
}

export async function loadManifestFile(file: string): Promise<LoadedManifest> {
  const path = resolve(file);
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    throw new ManifestError(`cannot read manifest ${path}: ${(err as Error).message}`, { cause: err });
  }
  const parsed = parseManifest(text, path);
  if (!parsed.ok) throw new ManifestError(parsed.message);
  return { manifest: parsed.manifest, file: path, dir: dirname(path) };
}

/** Every manifest in a folder (not recursive), one domain each; all errors are reported together. */
export async function loadManifestDir(dir: string): Promise<LoadedManifest[]> {
  const root = resolve(dir);
  let names: string[];
  try {
    names = (await readdir(root)).filter((n) => (MANIFEST_EXTENSIONS as readonly string[]).includes(extname(n).toLowerCase())).sort();
  } catch (err) {
    throw new ManifestError(`cannot read the manifests folder ${root}: ${(err as Error).message}`, { cause: err });
  }
  const loaded: LoadedManifest[] = [];
  const errors: string[] = [];
  for (const name of names) {
    try {
      loaded.push(await loadManifestFile(join(root, name)));
    } catch (err) {
      if (!(err instanceof ManifestError)) throw err;
      errors.push(err.message);
    }
  }
  const byDomain = new Map<string, string>();
  for (const l of loaded) {
    const other = byDomain.get(l.manifest.domain);
    if (other !== undefined) errors.push(`${l.file}: domain ${l.manifest.domain} is already declared by ${other}; one manifest per domain`);
    byDomain.set(l.manifest.domain, l.file);
  }
  if (errors.length > 0) throw new ManifestError(errors.join("\n"));
  return loaded;
}
