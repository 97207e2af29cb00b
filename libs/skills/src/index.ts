export {
  ACTIVATION_THRESHOLD,
  activateSkills,
  DEFAULT_MAX_SKILL_CHARS,
  DEFAULT_MAX_SKILLS,
  scoreSkill,
  type ActivationLimits,
  type SkillActivation,
  type SkillMatch,
} from "./activate-skills.js";
export { loadSkillDir, MAX_SKILL_BYTES, MAX_SKILL_FILES, SKILL_FILE, skillHash, type LoadedSkill, type SkillLoad } from "./load-skill.js";
export { insideFolder, parseSkillMd, skillToolDescriptor, type ParsedSkillMd, type SkillMdParse } from "./parse-skill-md.js";
export { issuesMessage, type SkillIssue } from "./skill-issues.js";
export { skillsPrompt } from "./skill-prompt.js";
export { skillRecord } from "./skill-record.js";
export { addSkill, latestSkills, listSkills, readSkill } from "./skill-store.js";
export { SKILL_FOLDERS, SKILL_INTERPRETERS, SkillFrontMatterSchema, SkillToolSchema, type SkillFrontMatter, type SkillTool } from "./skill-schema.js";
export type { SourcePosition } from "./source-position.js";
