import { z } from "zod";
import { GradeSchema } from "./grades.js";
import { DomainSchema, ToolNameSchema, VersionSchema } from "./tokens.js";

/**
 * A skill (docs/skills.md): procedural knowledge an agent is given when its task calls for it.
 * It teaches and never grants: its scripts are ordinary tools of domain `skill-<name>`, registered
 * with declared grades and decided by policy like any other tool.
 */

/** Lower-case words joined by single hyphens: it becomes part of a domain (`skill-<name>`) and a KV key. */
export const SKILL_NAME_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const SKILL_DOMAIN_PREFIX = "skill-";
/** The longest name whose domain (`skill-<name>`) still fits a domain's 40 characters. */
export const MAX_SKILL_NAME = 40 - SKILL_DOMAIN_PREFIX.length;
/** The most instruction text one skill may carry (the markdown after its front matter). */
export const MAX_SKILL_INSTRUCTIONS = 20_000;

export const SkillNameSchema = z
  .string({ error: (issue) => (issue.input === undefined ? "a skill needs a name: lower-case words joined by '-', e.g. pdf-report" : undefined) })
  .max(MAX_SKILL_NAME, `a skill name is at most ${MAX_SKILL_NAME} characters`)
  .regex(SKILL_NAME_PATTERN, "a skill name is lower-case letters and digits, with single '-' between words, e.g. pdf-report");

/** The domain a skill's scripts are registered under. */
export function skillDomain(name: string): string {
  return `${SKILL_DOMAIN_PREFIX}${name}`;
}

const Sha256Schema = z.string().regex(/^sha256:[0-9a-f]{64}$/);

/** One file of a skill folder (SKILL.md, scripts/…, references/…, assets/…) and its content hash. */
export const SkillFileSchema = z.object({
  path: z.string().min(1).max(400),
  sha256: Sha256Schema,
  bytes: z.int().min(0),
});
export type SkillFile = z.infer<typeof SkillFileSchema>;

/** A tool a skill's script is registered as. */
export const SkillToolRefSchema = z.object({
  name: ToolNameSchema,
  version: VersionSchema,
  grade: GradeSchema,
});
export type SkillToolRef = z.infer<typeof SkillToolRefSchema>;

/**
 * The `warden_skills` entry of one skill version (key `<name>.<version>`). A version is immutable:
 * `hash` covers every file of the folder, so the same name and version with other content is
 * refused (REGISTRATION_CONFLICT), as for tool descriptors.
 */
export const SkillRecordSchema = z.object({
  name: SkillNameSchema,
  version: VersionSchema,
  /** When to use it: matched against a task's words to activate the skill. */
  description: z.string().min(20).max(2_000),
  /** Phrases that activate it when every word of one appears in the task. */
  triggers: z.array(z.string().min(1).max(200)).max(32),
  /** The markdown after the front matter: what an activated skill adds to the agent's prompt. */
  instructions: z.string().min(1).max(MAX_SKILL_INSTRUCTIONS),
  domain: DomainSchema,
  tools: z.array(SkillToolRefSchema),
  files: z.array(SkillFileSchema).min(1),
  /** sha256 over the files' paths and hashes (canonical JSON): the skill's content. */
  hash: Sha256Schema,
  addedAt: z.iso.datetime(),
});
export type SkillRecord = z.infer<typeof SkillRecordSchema>;

/** A skill a subagent was given on a turn, and why (recorded on its ToolViewCompiled events). */
export const ActivatedSkillSchema = z.object({
  name: SkillNameSchema,
  version: VersionSchema,
  hash: Sha256Schema,
  score: z.int().min(0),
  reasons: z.array(z.string()),
});
export type ActivatedSkill = z.infer<typeof ActivatedSkillSchema>;
