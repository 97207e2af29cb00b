import { createHash } from "node:crypto";
import { lstat, readdir, readFile, realpath, stat } from "node:fs/promises";
import { join, relative, resolve, sep } from "node:path";
import { type SkillFile } from "@warden/contracts/descriptor";
import { canonicalJson, sha256Hex } from "@warden/contracts/json";
import { insideFolder, parseSkillMd, type ParsedSkillMd } from "./parse-skill-md.js";
import { issuesMessage, skillIssue, type SkillIssue } from "./skill-issues.js";
import { SKILL_FOLDERS, type SkillFrontMatter } from "./skill-schema.js";
import { dottedPath, type SourcePosition } from "./source-position.js";

export const SKILL_FILE = "SKILL.md";
/** Bounds on what a skill folder may hold: it is read whole and hashed each time it is loaded. */
export const MAX_SKILL_FILES = 256;
export const MAX_SKILL_BYTES = 32 * 1024 * 1024;

/** A skill folder, checked: its SKILL.md parsed, every file of it hashed. */
export interface LoadedSkill {
  /** The folder, symlinks resolved. */
  readonly dir: string;
  /** Its SKILL.md. */
  readonly file: string;
  readonly frontMatter: SkillFrontMatter;
  readonly instructions: string;
  /** SKILL.md and every file under scripts/, references/ and assets/, by path, with their hashes. */
  readonly files: readonly SkillFile[];
  /** The skill's content: sha256 over the files' paths and hashes. */
  readonly hash: string;
  positionOf(path: readonly PropertyKey[]): SourcePosition | undefined;
}

export type SkillLoad =
  | { readonly ok: true; readonly skill: LoadedSkill }
  | { readonly ok: false; readonly issues: readonly SkillIssue[]; /** Every issue, one per line, `file:line:col: path: message`. */ readonly message: string };

/** The content hash of a skill: what `warden_skills` binds a name and version to. */
export function skillHash(files: readonly Pick<SkillFile, "path" | "sha256">[]): string {
  const list = [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)).map((f) => ({ path: f.path, sha256: f.sha256 }));
  return `sha256:${sha256Hex(canonicalJson(list))}`;
}

/**
 * Reads a skill folder: SKILL.md (front matter and instructions), then its files. Refuses, with
 * every problem and its line: a bad front matter, a script that is not a file of scripts/ (or
 * not executable and with no interpreter), a root that is not a folder of the skill, and any file
 * or link that leads outside the folder.
 */
export async function loadSkillDir(dir: string): Promise<SkillLoad> {
  let root: string;
  try {
    root = await realpath(resolve(dir));
  } catch (err) {
    return failed([skillIssue(resolve(dir), "", `cannot read the skill folder: ${(err as Error).message}`)]);
  }
  const file = join(root, SKILL_FILE);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    return failed([skillIssue(file, "", `a skill folder holds a ${SKILL_FILE}: ${(err as Error).message}`)]);
  }
  const parsed = parseSkillMd(text, file);
  if (!parsed.ok) return failed(parsed.issues);
  const issues: SkillIssue[] = [];
  const files = await listFiles(root, issues);
  files.push({ path: SKILL_FILE, abs: file });
  await checkTools(root, parsed.value, files, issues);
  if (issues.length > 0) return failed(issues);
  const hashed: SkillFile[] = [];
  let total = 0;
  for (const f of files.sort((a, b) => (a.path < b.path ? -1 : 1))) {
    const bytes = await readFile(f.abs);
    total += bytes.length;
    if (total > MAX_SKILL_BYTES) return failed([skillIssue(root, "", `the skill's files pass ${MAX_SKILL_BYTES} bytes; keep data out of a skill`)]);
    hashed.push({ path: f.path, sha256: `sha256:${createHash("sha256").update(bytes).digest("hex")}`, bytes: bytes.length });
  }
  const { frontMatter, instructions, positionOf } = parsed.value;
  return { ok: true, skill: { dir: root, file, frontMatter, instructions, files: hashed, hash: skillHash(hashed), positionOf } };
}

function failed(issues: readonly SkillIssue[]): SkillLoad {
  return { ok: false, issues, message: issuesMessage(issues) };
}

interface FoundFile {
  readonly path: string;
  readonly abs: string;
}

/** Every regular file under the skill's folders; a link is followed only while it stays inside the skill. */
async function listFiles(root: string, issues: SkillIssue[]): Promise<FoundFile[]> {
  const out: FoundFile[] = [];
  const walk = async (abs: string): Promise<void> => {
    const rel = relative(root, abs).split(sep).join("/");
    const info = await lstat(abs);
    let target = abs;
    if (info.isSymbolicLink()) {
      target = await realpath(abs).catch(() => "");
      if (target === "" || !inside(root, target)) {
        issues.push(skillIssue(join(root, rel), "", "a link that leads outside the skill's folder (or nowhere): a skill holds its own files"));
        return;
      }
    }
    const s = await stat(target);
    if (s.isDirectory()) {
      for (const name of (await readdir(target)).sort()) await walk(join(abs, name));
    } else if (s.isFile()) {
      // one past the limit is enough to refuse; reading on would only cost time
      if (out.length === MAX_SKILL_FILES) issues.push(skillIssue(root, "", `a skill holds at most ${MAX_SKILL_FILES} files`));
      if (out.length <= MAX_SKILL_FILES) out.push({ path: rel, abs: target });
    }
  };
  for (const folder of SKILL_FOLDERS) {
    const abs = join(root, folder);
    if ((await lstat(abs).catch(() => undefined)) === undefined) continue;
    await walk(abs);
  }
  return out;
}

async function checkTools(root: string, parsed: ParsedSkillMd, files: readonly FoundFile[], issues: SkillIssue[]): Promise<void> {
  const byPath = new Map(files.map((f) => [f.path, f]));
  const file = join(root, SKILL_FILE);
  const report = (path: (string | number)[], message: string) => {
    const at = parsed.positionOf(path);
    issues.push(skillIssue(file, dottedPath(path), message, at));
  };
  for (const [i, t] of parsed.frontMatter.tools.entries()) {
    const script = insideFolder(t.script) ?? t.script;
    const found = byPath.get(script);
    if (found === undefined) {
      report(["tools", i, "script"], `${t.script} is not in the skill's folder: put the script under scripts/ (links must stay inside the folder)`);
    } else if (t.interpreter === undefined && ((await stat(found.abs)).mode & 0o111) === 0) {
      report(["tools", i, "script"], `${t.script} is not executable: make it so (chmod +x, with a #! line) or give an interpreter (sh, bash, python3, node)`);
    }
    for (const [j, r] of t.roots.entries()) {
      const abs = await realpath(join(root, r)).catch(() => undefined);
      if (abs === undefined || !inside(root, abs) || !(await stat(abs)).isDirectory()) report(["tools", i, "roots", j], `${r} is not a folder inside the skill`);
    }
  }
}

function inside(root: string, abs: string): boolean {
  return abs === root || abs.startsWith(root + sep);
}
