import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

export interface SkillFolderSpec {
  /** The SKILL.md front matter (written as JSON, which is YAML too). */
  readonly frontMatter: Readonly<Record<string, unknown>>;
  readonly instructions?: string;
  /** Other files by path (`scripts/x.sh`, `references/y.md`); scripts are made executable. */
  readonly files?: Readonly<Record<string, string>>;
}

/** A skill folder in a fresh temporary directory (or a new folder `name` under `parent`); returns its path. */
export function writeSkillFolder(spec: SkillFolderSpec, parent?: string, name?: string): string {
  const dir = parent === undefined ? mkdtempSync(join(tmpdir(), "warden-skill-")) : join(parent, name ?? String(spec.frontMatter["name"]));
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "SKILL.md"), `---\n${JSON.stringify(spec.frontMatter, null, 2)}\n---\n${spec.instructions ?? "Follow these steps."}\n`);
  for (const [path, text] of Object.entries(spec.files ?? {})) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
    if (path.startsWith("scripts/")) chmodSync(join(dir, path), 0o755);
  }
  return dir;
}
