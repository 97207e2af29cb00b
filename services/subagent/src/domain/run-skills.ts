import { gradeRank, type ActivatedSkill, type Grade, type SkillRecord } from "@warden/contracts/descriptor";
import { activateSkills, latestSkills, skillsPrompt } from "@warden/skills";

/** A tool a skill would add to the view that the subagent is not given, and why (recorded on ToolViewCompiled). */
export interface SkillToolHidden {
  readonly name: string;
  readonly reason: string;
  readonly detail: string;
}

/** What the skills a task activates add to one subagent run. */
export interface RunSkills {
  readonly activated: readonly ActivatedSkill[];
  /** The text the system prompt starts with ("" when no skill is active). */
  readonly prompt: string;
  /** Scripts of active skills the view may show (policy still decides each, as for any tool). */
  readonly tools: readonly string[];
  /** Scripts of active skills above the subagent's grade: never asked for. */
  readonly hidden: readonly SkillToolHidden[];
}

export const NO_SKILLS: RunSkills = { activated: [], prompt: "", tools: [], hidden: [] };

/**
 * The skills a run gets: the newest version of each stored skill the subagent may use (`names`;
 * undefined: all), activated by the task's words (capped), with their scripts offered to the view
 * only up to the subagent's own grade. A skill never makes a subagent more than its grade says,
 * so whoever delegated to it was asked (or not) for what it can actually do.
 */
export function runSkills(stored: readonly SkillRecord[], names: readonly string[] | undefined, grade: Grade, task: string): RunSkills {
  const usable = latestSkills(stored).filter((s) => names === undefined || names.includes(s.name));
  const { active } = activateSkills(usable, task);
  if (active.length === 0) return NO_SKILLS;
  const tools: string[] = [];
  const hidden: SkillToolHidden[] = [];
  for (const { skill } of active) {
    for (const t of skill.tools) {
      if (gradeRank(t.grade) <= gradeRank(grade)) tools.push(t.name);
      else hidden.push({ name: t.name, reason: "above_subagent_grade", detail: `skill ${skill.name}'s script is ${t.grade}; this subagent is ${grade}, and a skill never raises that` });
    }
  }
  return {
    activated: active.map((m) => ({ name: m.skill.name, version: m.skill.version, hash: m.skill.hash, score: m.score, reasons: [...m.reasons] })),
    prompt: skillsPrompt(active),
    tools,
    hidden,
  };
}
