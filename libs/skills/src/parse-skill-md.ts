import { posix } from "node:path";
import { LineCounter, parseDocument } from "yaml";
import { parseToolName } from "@warden/contracts/subjects";
import { lintDescriptor, MAX_SKILL_INSTRUCTIONS, skillDomain, ToolDescriptorSchema, type ToolDescriptor } from "@warden/contracts/descriptor";
import { skillIssue, type SkillIssue } from "./skill-issues.js";
import { SkillFrontMatterSchema, type SkillFrontMatter, type SkillTool } from "./skill-schema.js";
import { dottedPath, positionIn, type SourcePosition } from "./source-position.js";

/** A SKILL.md read: its front matter, its instructions, and where each front matter value sits. */
export interface ParsedSkillMd {
  readonly frontMatter: SkillFrontMatter;
  /** The markdown after the front matter, trimmed. */
  readonly instructions: string;
  positionOf(path: readonly PropertyKey[]): SourcePosition | undefined;
}

export type SkillMdParse = { readonly ok: true; readonly value: ParsedSkillMd } | { readonly ok: false; readonly issues: readonly SkillIssue[] };

const FENCE = /^---\s*$/;

/**
 * Parses a SKILL.md: YAML front matter between `---` lines, then the instructions. Checks what the
 * text alone can tell (the schema, tool names, paths that stay inside the folder, the descriptor
 * lint); the folder's files are checked by `loadSkillDir`. Every issue names its line.
 */
export function parseSkillMd(text: string, file: string): SkillMdParse {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  if (!FENCE.test(lines[0] ?? "")) {
    return { ok: false, issues: [skillIssue(file, "", "a SKILL.md starts with front matter: a line '---', YAML (name, version, description, ...), then '---'", { line: 1, col: 1 })] };
  }
  const end = lines.findIndex((l, i) => i > 0 && FENCE.test(l));
  if (end < 0) return { ok: false, issues: [skillIssue(file, "", "the front matter has no closing '---' line", { line: 1, col: 1 })] };
  const counter = new LineCounter();
  const doc = parseDocument(lines.slice(1, end).join("\n"), { lineCounter: counter, prettyErrors: false, uniqueKeys: true });
  const firstLine = 2;
  if (doc.errors.length > 0) {
    return {
      ok: false,
      issues: doc.errors.map((e) => {
        const p = e.pos[0] === undefined ? undefined : counter.linePos(e.pos[0]);
        return skillIssue(file, "", e.message.split("\n")[0] ?? e.message, p === undefined ? undefined : { line: p.line + firstLine - 1, col: p.col });
      }),
    };
  }
  const positionOf = (path: readonly PropertyKey[]) => positionIn(doc, counter, firstLine, path);
  const report = (path: readonly PropertyKey[], message: string) => skillIssue(file, dottedPath(path), message, positionOf(path));
  const parsed = SkillFrontMatterSchema.safeParse(doc.toJS({ maxAliasCount: 100 }) ?? {});
  if (!parsed.success) {
    return {
      ok: false,
      issues: parsed.error.issues.map((i) => {
        const keys = i.code === "unrecognized_keys" ? i.keys : [];
        return report([...i.path, ...(keys.length === 1 ? [keys[0]!] : [])], i.message);
      }),
    };
  }
  const fm = parsed.data;
  const instructions = lines.slice(end + 1).join("\n").trim();
  const issues: SkillIssue[] = [];
  if (instructions === "") issues.push(skillIssue(file, "", "a skill teaches: write its instructions (markdown) after the front matter", { line: end + 1, col: 1 }));
  if (instructions.length > MAX_SKILL_INSTRUCTIONS) {
    issues.push(skillIssue(file, "", `the instructions are ${instructions.length} characters; at most ${MAX_SKILL_INSTRUCTIONS}`, { line: end + 2, col: 1 }));
  }
  const seen = new Map<string, number>();
  fm.tools.forEach((t, i) => {
    const at = ["tools", i];
    for (const problem of toolProblems(fm, t)) issues.push(report([...at, ...problem.path], problem.message));
    const prior = seen.get(t.name);
    if (prior !== undefined) issues.push(report([...at, "name"], `${t.name} is already the name of tools[${prior}]`));
    seen.set(t.name, i);
  });
  if (issues.length > 0) return { ok: false, issues };
  return { ok: true, value: { frontMatter: fm, instructions, positionOf } };
}

/** The descriptor a skill's script registers: its declared fields under `skill-<name>.<tool>`, the skill's version. */
export function skillToolDescriptor(fm: Pick<SkillFrontMatter, "name" | "version">, t: SkillTool): ToolDescriptor {
  const { script: _s, interpreter: _i, args, argv: _a, output: _o, roots: _r, cwd: _c, okExitCodes: _k, name, ...fields } = t;
  return { ...fields, name: `${skillDomain(fm.name)}.${name}`, version: fm.version, inputSchema: args };
}

interface Problem {
  readonly path: (string | number)[];
  readonly message: string;
}

function toolProblems(fm: SkillFrontMatter, t: SkillTool): Problem[] {
  const out: Problem[] = [];
  const full = `${skillDomain(fm.name)}.${t.name}`;
  if (parseToolName(full) === undefined) out.push({ path: ["name"], message: `${full} is not a tool name: letters, digits, '-' and single '_', at most 64 characters in all` });
  const script = insideFolder(t.script);
  if (script === undefined || !script.startsWith("scripts/")) {
    out.push({ path: ["script"], message: `${t.script} is not a file of the skill's scripts/ folder (a relative path such as scripts/extract.sh, never leaving the folder)` });
  }
  t.roots.forEach((r, j) => {
    if (insideFolder(r) === undefined) out.push({ path: ["roots", j], message: `${r} leaves the skill's folder: a root is a folder inside it (relative, no '..' above it)` });
  });
  const descriptor = ToolDescriptorSchema.safeParse(skillToolDescriptor(fm, t));
  if (!descriptor.success) {
    for (const i of descriptor.error.issues) out.push({ path: i.path.map((p) => (p === "inputSchema" ? "args" : p)) as (string | number)[], message: i.message });
  } else {
    for (const lint of lintDescriptor(descriptor.data)) out.push({ path: [], message: `${lint.rule}: ${lint.message}` });
  }
  return out;
}

/** The path normalised inside the folder (`.` for the folder itself), or undefined when it leaves it. */
export function insideFolder(path: string): string | undefined {
  if (path.includes("\\") || posix.isAbsolute(path)) return undefined;
  const n = posix.normalize(path);
  if (n === ".." || n.startsWith("../")) return undefined;
  return n.replace(/\/$/, "");
}
