/**
 * `npm run pack`: an installable tarball of each package meant for use outside this repository
 * (CONVENTIONS.md: @warden/sdk, @warden/executor, @warden/contracts and the libs they need), into
 * dist-packages/ (gitignored). Install them together, so their dependencies on each other are
 * satisfied by the tarballs rather than a registry:
 *
 *   npm install /path/to/warden/dist-packages/*.tgz
 *
 * It checks first that each is built and carries publish-ready metadata (license as the root's,
 * repository as the root's once the root names one, description, keywords, engines, files), and
 * removes older tarballs of the same packages, so the glob installs one of each. Plain
 * `node scripts/pack-packages.ts [--dest DIR] [--json]` (Node's type stripping; `npm run pack`
 * builds first); test/e2e/packages.test.ts runs it.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export const ROOT = resolve(fileURLToPath(new URL("..", import.meta.url)));

/** The packages a user installs, with the internal ones they depend on (each its own tarball). */
export const INSTALLABLE_PACKAGES = ["@warden/contracts", "@warden/bus", "@warden/projections", "@warden/sdk", "@warden/service-kit", "@warden/executor"] as const;

/** Where `npm run pack` writes the tarballs unless told. */
export const PACK_DIR = "dist-packages";

/** What `npm pack --json` reports of one tarball. */
export interface PackedPackage {
  readonly name: string;
  readonly version: string;
  /** The tarball's path. */
  readonly tarball: string;
  /** The files inside it, relative to the package. */
  readonly files: readonly string[];
}

interface Manifest {
  readonly name: string;
  readonly private?: boolean;
  readonly license?: string;
  readonly description?: string;
  readonly keywords?: readonly string[];
  readonly engines?: { readonly node?: string };
  readonly files?: readonly string[];
  readonly repository?: { readonly type?: string; readonly url?: string; readonly directory?: string };
  readonly exports?: Record<string, unknown>;
}

/** The code file of each entry point in an exports map (a root, or sub-paths as @warden/contracts has). */
function entryFiles(m: Manifest): string[] {
  return Object.values(m.exports ?? {}).flatMap((target) => {
    const code = typeof target === "object" && target !== null ? (target as { default?: unknown }).default : undefined;
    return typeof code === "string" && code.endsWith(".js") ? [code] : [];
  });
}

/**
 * npm run from here must not think it works on whatever workspace ran us: `npm test` and `npm run`
 * export their settings (a workspace, a prefix) to child processes.
 */
export function npmEnv(extra: Record<string, string> = {}): Record<string, string> {
  const keep = Object.entries(process.env).filter(
    (e): e is [string, string] =>
      e[1] !== undefined &&
      !/^npm_(package|lifecycle)_/i.test(e[0]) &&
      !/^npm_config_(workspace|workspaces|include_workspace_root|global|prefix|local_prefix)$/i.test(e[0]) &&
      !["NATS_URL", "NATS_CREDS", "WARDEN_HOME"].includes(e[0]),
  );
  return { ...Object.fromEntries(keep), ...extra };
}

/** The workspace folder of each package, by name. */
function workspaceDirs(): Map<string, string> {
  const dirs = new Map<string, string>();
  for (const group of ["libs", "services"]) {
    for (const entry of readdirSync(join(ROOT, group))) {
      const file = join(ROOT, group, entry, "package.json");
      if (existsSync(file)) dirs.set((JSON.parse(readFileSync(file, "utf8")) as Manifest).name, `${group}/${entry}`);
    }
  }
  return dirs;
}

/** What keeps a package from being packed for publication; empty when nothing does. */
export function publishProblems(name: string, dir: string, m: Manifest, root: Manifest): string[] {
  const problems: string[] = [];
  if (m.private === true) problems.push("is private");
  if (!m.license) problems.push("has no license");
  if (!m.description) problems.push("has no description");
  if (!m.keywords || m.keywords.length === 0) problems.push("has no keywords");
  if (m.engines?.node !== root.engines?.node) problems.push(`engines.node ${m.engines?.node} is not the root's ${root.engines?.node}`);
  if (!m.files?.includes("dist")) problems.push("files does not list dist");
  if (m.license !== root.license) problems.push(`license ${m.license} is not the root's ${root.license}`);
  // no public remote yet: once the root names one, every package must carry it with its folder
  if (root.repository?.url !== undefined) {
    if (m.repository?.url !== root.repository.url) problems.push("repository.url is not the root's");
    if (m.repository?.directory !== dir) problems.push(`repository.directory is not ${dir}`);
  } else if (m.repository !== undefined) problems.push("has a repository the root package.json does not name");
  const entries = entryFiles(m);
  if (entries.length === 0) problems.push("has no entry point in its exports map");
  const unbuilt = entries.filter((file) => !existsSync(join(ROOT, dir, file)));
  if (unbuilt.length > 0) problems.push(`is not built (${unbuilt.map((f) => join(dir, f)).join(", ")} missing): run \`npm run build\` first`);
  if (!existsSync(join(ROOT, dir, "README.md"))) problems.push("has no README.md");
  return problems.map((p) => `${name} ${p}`);
}

/** Packs every installable package into `dest` (created; older tarballs of these packages removed). */
export function packPackages(dest: string): PackedPackage[] {
  const root = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as Manifest;
  const dirs = workspaceDirs();
  const problems = INSTALLABLE_PACKAGES.flatMap((name) => {
    const dir = dirs.get(name);
    if (dir === undefined) return [`${name} is not a workspace of ${ROOT}`];
    return publishProblems(name, dir, JSON.parse(readFileSync(join(ROOT, dir, "package.json"), "utf8")) as Manifest, root);
  });
  if (problems.length > 0) throw new Error(`cannot pack:\n  ${problems.join("\n  ")}`);
  mkdirSync(dest, { recursive: true });
  const stems = INSTALLABLE_PACKAGES.map((name) => `${name.replace(/^@/, "").replace("/", "-")}-`);
  for (const f of readdirSync(dest)) if (f.endsWith(".tgz") && stems.some((s) => f.startsWith(s))) rmSync(join(dest, f));
  const out = execFileSync("npm", ["pack", ...INSTALLABLE_PACKAGES.flatMap((p) => ["-w", p]), "--pack-destination", dest, "--json"], {
    cwd: ROOT,
    env: npmEnv(),
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    maxBuffer: 16 * 1024 * 1024,
  });
  const reports = JSON.parse(out) as { name: string; version: string; filename: string; files: { path: string }[] }[];
  return reports.map((r) => ({ name: r.name, version: r.version, tarball: join(dest, r.filename), files: r.files.map((f) => f.path) }));
}

function main(argv: readonly string[]): void {
  const at = argv.indexOf("--dest");
  const given = at < 0 ? undefined : argv[at + 1];
  if (at >= 0 && (given === undefined || given.startsWith("--"))) throw new Error("--dest needs a folder");
  const dest = given === undefined ? join(ROOT, PACK_DIR) : isAbsolute(given) ? given : resolve(process.cwd(), given);
  const packed = packPackages(dest);
  if (argv.includes("--json")) {
    process.stdout.write(`${JSON.stringify(packed)}\n`);
    return;
  }
  for (const p of packed) process.stdout.write(`${p.tarball}\n`);
  process.stdout.write(`install them together: npm install ${join(dest, "*.tgz")}\n`);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    main(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`npm run pack: ${(err as Error).message}\n`);
    process.exit(1);
  }
}
