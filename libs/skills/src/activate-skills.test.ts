import { describe, expect, it } from "vitest";
import type { SkillRecord } from "@warden/contracts/descriptor";
import { activateSkills } from "./activate-skills.js";
import { skillsPrompt } from "./skill-prompt.js";

const HASH = `sha256:${"0".repeat(64)}`;

function skill(name: string, description: string, triggers: string[] = [], instructions = `Instructions of ${name}.`): SkillRecord {
  return {
    name,
    version: "1.0.0",
    description,
    triggers,
    instructions,
    domain: `skill-${name}`,
    tools: [{ name: `skill-${name}.run`, version: "1.0.0", grade: "read" }],
    files: [{ path: "SKILL.md", sha256: HASH, bytes: 10 }],
    hash: HASH,
    addedAt: "2025-01-01T00:00:00.000Z",
  };
}

const PDF = skill("pdf-report", "Use when an invoice or a report arrives as a PDF and its text is needed.", ["extract text"]);
const REFUND = skill("refund-policy", "Use when a customer asks for their money back: the refund rules and their exceptions.", ["refund"]);
const SHIPPING = skill("shipping", "Use when a parcel is late or lost: carriers, tracking and claims.");

describe("activateSkills", () => {
  it("activates the skills a task's words match, best first, and says why", () => {
    const r = activateSkills([SHIPPING, PDF, REFUND], "The customer wants a refund for the invoice in the attached PDF");
    expect(r.active.map((m) => [m.skill.name, m.score])).toEqual([["refund-policy", 7], ["pdf-report", 4]]);
    expect(r.active[0]!.reasons).toEqual(['trigger "refund" is in the task', "name matches refund", "description matches customer, refund"]);
    expect(r.active[1]!.reasons).toEqual(["name matches pdf", "description matches invoice, pdf"]);
    expect(r.capped).toEqual([]);
  });

  it("activates nothing for an unrelated task, nor on one shared common word", () => {
    expect(activateSkills([SHIPPING, PDF, REFUND], "Summarise the meeting notes for the team").active).toEqual([]);
    expect(activateSkills([SHIPPING, PDF, REFUND], "the customer is waiting").active).toEqual([]);
  });

  it("needs every word of a trigger", () => {
    expect(activateSkills([PDF], "extract the names").active).toEqual([]);
    expect(activateSkills([PDF], "extract the text of it").active.map((m) => m.skill.name)).toEqual(["pdf-report"]);
  });

  it("ranks the same way every time, and caps the count and the size of what it gives", () => {
    const many = ["alpha", "bravo", "charlie", "delta"].map((n) => skill(`${n}-pdf`, `Use when a PDF needs the ${n} treatment for a report.`));
    const a = activateSkills(many, "a pdf report", { maxSkills: 2 });
    const b = activateSkills([...many].reverse(), "a pdf report", { maxSkills: 2 });
    expect(a.active.map((m) => m.skill.name)).toEqual(["alpha-pdf", "bravo-pdf"]);
    expect(b.active.map((m) => m.skill.name)).toEqual(["alpha-pdf", "bravo-pdf"]);
    expect(a.capped.map((m) => m.skill.name)).toEqual(["charlie-pdf", "delta-pdf"]);
    const big = skill("big-pdf", "Use when a PDF report is huge.", [], "x".repeat(30_000));
    expect(activateSkills([big], "a pdf report").capped.map((m) => m.skill.name)).toEqual(["big-pdf"]);
  });
});

describe("skillsPrompt", () => {
  it("gives each active skill's instructions and scripts, and says a skill grants nothing", () => {
    const text = skillsPrompt(activateSkills([PDF], "extract text from the pdf").active);
    expect(text).toMatch(/^Skills for this task: .*A skill grants no permission/);
    expect(text).toContain("## Skill pdf-report 1.0.0\n\nInstructions of pdf-report.");
    expect(text).toContain("skill-pdf-report.run (read)");
    expect(skillsPrompt([])).toBe("");
  });
});
