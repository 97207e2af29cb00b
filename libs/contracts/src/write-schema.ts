import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { jsonSchemaFiles } from "./json-schemas.js";

/** Writes libs/contracts/schema/*.json, or with --check fails when they are stale. */
const dir = join(dirname(fileURLToPath(import.meta.url)), "..", "schema");
const check = process.argv.includes("--check");
const files = jsonSchemaFiles();
const stale: string[] = [];
if (!check) mkdirSync(dir, { recursive: true });
const existing = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith(".json")) : [];
for (const [name, text] of Object.entries(files)) {
  const path = join(dir, name);
  const current = existsSync(path) ? readFileSync(path, "utf8") : undefined;
  if (current === text) continue;
  if (check) stale.push(name);
  else writeFileSync(path, text);
}
for (const f of existing) {
  if (files[f] !== undefined) continue;
  if (check) stale.push(f);
  else rmSync(join(dir, f));
}
if (check && stale.length > 0) {
  process.stderr.write(`schema files are stale: ${stale.join(", ")}; run npm run schema and commit libs/contracts/schema\n`);
  process.exit(1);
}
process.stdout.write(check ? "schema files are current\n" : `wrote ${Object.keys(files).length} schema files to ${dir}\n`);
