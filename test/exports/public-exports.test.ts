import { readdirSync, readFileSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "../..");
const LIST = join(import.meta.dirname, "public-exports.json");
const UPDATE = process.env["WARDEN_UPDATE_EXPORTS"] === "1";

interface Manifest {
  readonly name: string;
  readonly exports?: Record<string, unknown>;
}

/** Every import specifier a workspace package under libs/ and services/ (and cli) offers: its name and each subpath of its exports map. */
function entryPoints(): string[] {
  const dirs = ["libs", "services"].flatMap((group) => readdirSync(join(ROOT, group)).map((d) => join(ROOT, group, d)));
  dirs.push(join(ROOT, "cli"));
  return dirs
    .filter((dir) => existsSync(join(dir, "package.json")))
    .flatMap((dir) => {
      const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Manifest;
      return Object.keys(manifest.exports ?? {})
        .filter((subpath) => !subpath.endsWith(".json"))
        .map((subpath) => (subpath === "." ? manifest.name : `${manifest.name}/${subpath.slice(2)}`));
    })
    .sort();
}

async function runtimeExports(): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const specifier of entryPoints()) out[specifier] = Object.keys((await import(specifier)) as object).sort();
  return out;
}

// types are not in a module's keys: tsc and the dependants' builds guard those
describe("the public export list of each package", () => {
  it("is the checked-in list (test/exports/public-exports.json)", async () => {
    const actual = await runtimeExports();
    if (UPDATE) writeFileSync(LIST, `${JSON.stringify(actual, null, 2)}\n`);
    const expected = existsSync(LIST) ? (JSON.parse(readFileSync(LIST, "utf8")) as Record<string, string[]>) : {};
    expect(
      actual,
      "a package's public exports changed: if on purpose, run `npm run build && WARDEN_UPDATE_EXPORTS=1 npx vitest run test/exports` and commit the list with the change",
    ).toEqual(expected);
  });
});
