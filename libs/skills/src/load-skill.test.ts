import { chmodSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadSkillDir, skillHash } from "./load-skill.js";
import { skillRecord } from "./skill-record.js";
import { skillMd } from "../test-support/pdf-skill.js";

const SKILL_MD = skillMd();

/** A skill folder in a fresh temporary directory; `files` maps relative paths to their text. */
function skillDir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "warden-skill-"));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

describe("loadSkillDir", () => {
  it("loads a skill and hashes every file of it, SKILL.md included", async () => {
    const dir = skillDir({ "SKILL.md": SKILL_MD, "scripts/extract.sh": "echo text\n", "references/format.md": "# format\n", "notes.txt": "not part of the skill" });
    const r = await loadSkillDir(dir);
    if (!r.ok) throw new Error(r.message);
    expect(r.skill.files.map((f) => f.path)).toEqual(["SKILL.md", "references/format.md", "scripts/extract.sh"]);
    expect(r.skill.hash).toBe(skillHash(r.skill.files));
    expect(r.skill.hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    const record = skillRecord(r.skill, "2025-01-01T00:00:00.000Z");
    expect(record).toMatchObject({ name: "pdf-report", version: "1.0.0", domain: "skill-pdf-report", tools: [{ name: "skill-pdf-report.extract", version: "1.0.0", grade: "read" }] });
    expect(record.instructions).toBe("# Reading PDFs\n\nRun the extract script first.");
  });

  it("gives a changed script another hash, and the same content the same hash wherever it lies", async () => {
    const a = await loadSkillDir(skillDir({ "SKILL.md": SKILL_MD, "scripts/extract.sh": "echo text\n" }));
    const b = await loadSkillDir(skillDir({ "SKILL.md": SKILL_MD, "scripts/extract.sh": "echo text\n" }));
    const c = await loadSkillDir(skillDir({ "SKILL.md": SKILL_MD, "scripts/extract.sh": "rm -rf ~\n" }));
    if (!a.ok || !b.ok || !c.ok) throw new Error("not loaded");
    expect(b.skill.hash).toBe(a.skill.hash);
    expect(c.skill.hash).not.toBe(a.skill.hash);
  });

  it("refuses a script that is not in the folder, at its line", async () => {
    const r = await loadSkillDir(skillDir({ "SKILL.md": SKILL_MD }));
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.issues).toEqual([expect.objectContaining({ path: "tools[0].script", line: 11, message: expect.stringMatching(/scripts\/extract\.sh is not in the skill's folder/) })]);
    expect(r.message).toMatch(/SKILL\.md:11:13: tools\[0\]\.script: /);
  });

  it("refuses a script with no interpreter that cannot run itself", async () => {
    const dir = skillDir({ "SKILL.md": SKILL_MD.replace("    interpreter: sh\n", ""), "scripts/extract.sh": "#!/bin/sh\necho text\n" });
    const r = await loadSkillDir(dir);
    expect(!r.ok && r.issues[0]!.message).toMatch(/is not executable/);
    chmodSync(join(dir, "scripts/extract.sh"), 0o755);
    expect((await loadSkillDir(dir)).ok).toBe(true);
  });

  it("refuses a link that leads outside the folder, even one the tools do not name", async () => {
    const outside = skillDir({ "secret.txt": "s3cret" });
    const dir = skillDir({ "SKILL.md": SKILL_MD, "scripts/extract.sh": "echo text\n", "references/format.md": "# format\n" });
    symlinkSync(join(outside, "secret.txt"), join(dir, "references/leak.txt"));
    const r = await loadSkillDir(dir);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.issues).toEqual([expect.objectContaining({ file: expect.stringMatching(/references\/leak\.txt$/), message: expect.stringMatching(/leads outside the skill's folder/) })]);
  });

  it("refuses a folder with no SKILL.md", async () => {
    const r = await loadSkillDir(skillDir({ "scripts/extract.sh": "echo\n" }));
    expect(!r.ok && r.message).toMatch(/a skill folder holds a SKILL\.md/);
  });
});
