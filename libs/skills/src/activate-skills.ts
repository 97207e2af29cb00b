import type { SkillRecord } from "@warden/contracts/descriptor";
import { intentTerms } from "@warden/policy-engine";

/** A skill the task activated, and the words that did it. */
export interface SkillMatch {
  readonly skill: SkillRecord;
  readonly score: number;
  readonly reasons: readonly string[];
}

export interface SkillActivation {
  /** Best first: the skills whose instructions the agent is given. */
  readonly active: readonly SkillMatch[];
  /** Skills that matched but were left out by the caps. */
  readonly capped: readonly SkillMatch[];
}

export interface ActivationLimits {
  /** At most this many skills (default 3). */
  readonly maxSkills?: number;
  /** At most this many characters of instructions in all (default 24 000): a prompt is not a library. */
  readonly maxChars?: number;
}

export const DEFAULT_MAX_SKILLS = 3;
export const DEFAULT_MAX_SKILL_CHARS = 24_000;
/** A trigger, or a name word and a description word, or three description words: one shared word is chance. */
export const ACTIVATION_THRESHOLD = 3;

const WEIGHTS = { trigger: 3, name: 2, description: 1 } as const;

/** As resolve-intent reads words: one starts with the other ("invoice" ~ "invoices"). */
function matches(term: string, words: readonly string[]): boolean {
  return words.some((w) => w.startsWith(term) || (term.startsWith(w) && w.length >= 4));
}

/**
 * Which skills a task activates, deterministically and in words: each trigger whose every word is
 * in the task adds 3, each task word in the skill's name 2, in its description 1; a skill scoring
 * at least ACTIVATION_THRESHOLD is a match. Ranked by score, then name; capped in count and size.
 */
export function activateSkills(skills: readonly SkillRecord[], task: string, limits: ActivationLimits = {}): SkillActivation {
  const terms = intentTerms(task);
  const matched: SkillMatch[] = [];
  for (const skill of skills) {
    const m = scoreSkill(skill, terms);
    if (m.score >= ACTIVATION_THRESHOLD) matched.push(m);
  }
  matched.sort((a, b) => b.score - a.score || (a.skill.name < b.skill.name ? -1 : a.skill.name > b.skill.name ? 1 : 0));
  const maxSkills = limits.maxSkills ?? DEFAULT_MAX_SKILLS;
  const maxChars = limits.maxChars ?? DEFAULT_MAX_SKILL_CHARS;
  const active: SkillMatch[] = [];
  const capped: SkillMatch[] = [];
  let chars = 0;
  for (const m of matched) {
    if (active.length < maxSkills && chars + m.skill.instructions.length <= maxChars) {
      active.push(m);
      chars += m.skill.instructions.length;
    } else capped.push(m);
  }
  return { active, capped };
}

export function scoreSkill(skill: SkillRecord, terms: readonly string[]): SkillMatch {
  let score = 0;
  const reasons: string[] = [];
  for (const trigger of skill.triggers) {
    const t = intentTerms(trigger);
    if (t.length > 0 && t.every((w) => terms.some((x) => matches(x, [w])))) {
      score += WEIGHTS.trigger;
      reasons.push(`trigger "${trigger}" is in the task`);
    }
  }
  const name = intentTerms(skill.name.replace(/-/g, " "));
  const byName = terms.filter((t) => matches(t, name));
  if (byName.length > 0) {
    score += WEIGHTS.name * byName.length;
    reasons.push(`name matches ${byName.join(", ")}`);
  }
  const description = intentTerms(skill.description);
  const byDescription = terms.filter((t) => matches(t, description));
  if (byDescription.length > 0) {
    score += WEIGHTS.description * byDescription.length;
    reasons.push(`description matches ${byDescription.join(", ")}`);
  }
  return { skill, score, reasons };
}
