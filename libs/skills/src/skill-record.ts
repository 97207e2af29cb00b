import { skillDomain, type SkillRecord } from "@warden/contracts/descriptor";
import type { LoadedSkill } from "./load-skill.js";
import { skillToolDescriptor } from "./parse-skill-md.js";

/** What `warden skills add` stores for a loaded skill (`warden_skills`, key `<name>.<version>`). */
export function skillRecord(skill: LoadedSkill, addedAt: string): SkillRecord {
  const fm = skill.frontMatter;
  return {
    name: fm.name,
    version: fm.version,
    description: fm.description,
    triggers: fm.triggers,
    instructions: skill.instructions,
    domain: skillDomain(fm.name),
    tools: fm.tools.map((t) => {
      const d = skillToolDescriptor(fm, t);
      return { name: d.name, version: d.version, grade: d.grade };
    }),
    files: [...skill.files],
    hash: skill.hash,
    addedAt,
  };
}
