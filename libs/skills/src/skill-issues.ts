import type { SourcePosition } from "./source-position.js";

/** One problem of a skill folder, where it is: the file, the line when known, and the front matter path. */
export interface SkillIssue {
  readonly file: string;
  /** Dotted path in the front matter (`tools[1].grade`); empty for the file itself. */
  readonly path: string;
  readonly message: string;
  readonly line?: number;
  readonly col?: number;
}

export function skillIssue(file: string, path: string, message: string, at?: SourcePosition): SkillIssue {
  return at === undefined ? { file, path, message } : { file, path, message, line: at.line, col: at.col };
}

/** Every issue, one per line: `file:line:col: path: message`. */
export function issuesMessage(issues: readonly SkillIssue[]): string {
  return issues.map((i) => `${i.file}${i.line === undefined ? "" : `:${i.line}:${i.col ?? 1}`}: ${i.path === "" ? "" : `${i.path}: `}${i.message}`).join("\n");
}
