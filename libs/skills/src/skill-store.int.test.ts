import { describe, expect, it } from "vitest";
import { BUCKET_SKILLS } from "@warden/contracts/subjects";
import { type SkillRecord } from "@warden/contracts/descriptor";
import { useTestNats } from "@warden/testing";
import { addSkill, latestSkills, listSkills, readSkill } from "./skill-store.js";

const hash = (c: string) => `sha256:${c.repeat(64)}`;

function record(version: string, content = "a"): SkillRecord {
  return {
    name: "pdf-report",
    version,
    description: "Use when an invoice or a report arrives as a PDF and its text is needed.",
    triggers: ["pdf"],
    instructions: "Run the extract script first.",
    domain: "skill-pdf-report",
    tools: [{ name: "skill-pdf-report.extract", version, grade: "read" }],
    files: [{ path: "SKILL.md", sha256: hash(content), bytes: 10 }],
    hash: hash(content),
    addedAt: "2025-01-01T00:00:00.000Z",
  };
}

describe("the skill store (warden_skills)", () => {
  const t = useTestNats();

  it("adds a version once, takes the same content again as unchanged, and refuses other content under that version", async () => {
    expect(await addSkill(t.bus, record("1.0.0"))).toMatchObject({ ok: true, value: { created: true } });
    expect(await addSkill(t.bus, { ...record("1.0.0"), addedAt: "2025-02-01T00:00:00.000Z" })).toMatchObject({
      ok: true,
      value: { created: false, record: { addedAt: "2025-01-01T00:00:00.000Z" } },
    });
    const changed = await addSkill(t.bus, record("1.0.0", "b"));
    expect(changed).toMatchObject({ ok: false, error: { code: "REGISTRATION_CONFLICT", retryable: false } });
    expect(!changed.ok && changed.error.message).toMatch(/a version is immutable, give the changed skill a new version/);
    expect((await readSkill(t.bus, "pdf-report", "1.0.0"))?.hash).toBe(hash("a"));
  });

  it("lists every version and picks the newest of each skill; something that is no skill record is left out", async () => {
    expect((await addSkill(t.bus, record("1.10.0", "c"))).ok).toBe(true);
    expect((await addSkill(t.bus, record("1.2.0", "d"))).ok).toBe(true);
    await (await t.bus.kvm.open(BUCKET_SKILLS)).put("junk.1.0.0", "not json");
    const all = await listSkills(t.bus);
    expect(all.map((r) => r.version)).toEqual(["1.0.0", "1.2.0", "1.10.0"]);
    expect(latestSkills(all).map((r) => `${r.name}@${r.version}`)).toEqual(["pdf-report@1.10.0"]);
  });
});
