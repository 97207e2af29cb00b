import type { SkillMatch } from "./activate-skills.js";

/**
 * The text an agent's system prompt starts with when skills are active: each skill's
 * instructions, and a reminder that a skill teaches and grants nothing (its scripts are tools the
 * agent has only if its view lists them).
 */
export function skillsPrompt(active: readonly SkillMatch[]): string {
  if (active.length === 0) return "";
  const parts = [
    "Skills for this task: procedures to follow where they help. A skill grants no permission: you can call only the tools you are given, and a script of a skill that is not among them is not yours to run.",
  ];
  for (const { skill } of active) {
    const scripts = skill.tools.length === 0 ? "" : `\n\nIts scripts, when you are given them: ${skill.tools.map((t) => `${t.name} (${t.grade})`).join(", ")}.`;
    parts.push(`## Skill ${skill.name} ${skill.version}\n\n${skill.instructions}${scripts}`);
  }
  return parts.join("\n\n");
}
