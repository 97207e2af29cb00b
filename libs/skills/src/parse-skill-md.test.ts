import { describe, expect, it } from "vitest";
import { PDF_SKILL_FRONT_MATTER as GOOD, skillMd } from "../test-support/pdf-skill.js";
import { parseSkillMd, skillToolDescriptor } from "./parse-skill-md.js";

const FILE = "/skills/pdf/SKILL.md";

describe("parseSkillMd", () => {
  it("reads the front matter, the instructions and where each value sits", () => {
    const r = parseSkillMd(skillMd(GOOD), FILE);
    if (!r.ok) throw new Error(JSON.stringify(r.issues));
    expect(r.value.frontMatter).toMatchObject({ name: "pdf-report", version: "1.0.0", triggers: ["pdf", "extract text"] });
    expect(r.value.frontMatter.tools[0]).toMatchObject({ name: "extract", grade: "read", output: "text", network: "none", roots: ["."] });
    expect(r.value.instructions).toBe("# Reading PDFs\n\nRun the extract script first.");
    // the front matter starts on the file's second line
    expect(r.value.positionOf(["tools", 0, "grade"])).toEqual({ line: 10, col: 12 });
  });

  it("makes each script a tool of domain skill-<name> at the skill's version, with its declared grade and args schema", () => {
    const r = parseSkillMd(skillMd(GOOD), FILE);
    if (!r.ok) throw new Error("invalid");
    const d = skillToolDescriptor(r.value.frontMatter, r.value.frontMatter.tools[0]!);
    expect(d).toMatchObject({ name: "skill-pdf-report.extract", version: "1.0.0", grade: "read", network: "none", destructive: false });
    expect(d.inputSchema).toEqual({ type: "object", properties: { file: { type: "string" } }, required: ["file"] });
    expect(d).not.toHaveProperty("script");
  });

  it("refuses a SKILL.md without a name, naming the line", () => {
    const r = parseSkillMd(skillMd(GOOD.replace("name: pdf-report\n", "")), FILE);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.issues).toEqual([expect.objectContaining({ file: FILE, path: "name", line: 2, message: expect.stringMatching(/a skill needs a name/) })]);
  });

  it("refuses a script with no declared grade, at the script's line", () => {
    const r = parseSkillMd(skillMd(GOOD.replace("    grade: read\n", "")), FILE);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.issues).toEqual([expect.objectContaining({ path: "tools[0].grade", line: 7, message: expect.stringMatching(/a script needs a declared grade/) })]);
  });

  it("refuses a script path or a root that leaves the folder", () => {
    const bad = GOOD.replace("script: scripts/extract.sh", "script: ../../bin/rm").replace("argv:", "roots: [\"/etc\", \"references/../..\"]\n    argv:");
    const r = parseSkillMd(skillMd(bad), FILE);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.issues.map((i) => [i.path, i.line])).toEqual([
      ["tools[0].script", 11],
      ["tools[0].roots[0]", 14],
      ["tools[0].roots[1]", 14],
    ]);
    expect(r.issues[0]!.message).toMatch(/not a file of the skill's scripts\/ folder/);
    expect(r.issues[1]!.message).toMatch(/leaves the skill's folder/);
  });

  it("refuses a read script flagged destructive, as the registry's lint refuses any such descriptor", () => {
    const r = parseSkillMd(skillMd(GOOD.replace("    grade: read\n", "    grade: read\n    destructive: true\n")), FILE);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.issues).toEqual([expect.objectContaining({ path: "tools[0]", line: 7, message: expect.stringMatching(/^read-not-destructive: /) })]);
  });

  it("refuses a file with no front matter, an unknown key, twice the same tool, and no instructions", () => {
    const none = parseSkillMd("# just markdown\n", FILE);
    expect(!none.ok && none.issues[0]).toMatchObject({ line: 1, message: expect.stringMatching(/starts with front matter/) });
    const unknown = parseSkillMd(skillMd(`${GOOD}\npermissions: [send]`), FILE);
    expect(!unknown.ok && unknown.issues[0]).toMatchObject({ path: "permissions", line: 15 });
    const twice = parseSkillMd(skillMd(`${GOOD}\n${GOOD.slice(GOOD.indexOf("  - name: extract"))}`), FILE);
    expect(!twice.ok && twice.issues.map((i) => i.path)).toEqual(["tools[1].name"]);
    const empty = parseSkillMd(skillMd(GOOD, "\n  \n"), FILE);
    expect(!empty.ok && empty.issues[0]!.message).toMatch(/write its instructions/);
  });
});
