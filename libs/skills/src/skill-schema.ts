import { z } from "zod";
import { VersionSchema } from "@warden/contracts/subjects";
import { GRADES, JsonSchemaObjectSchema, SkillNameSchema, ToolDescriptorSchema } from "@warden/contracts/descriptor";
import { JsonValueSchema } from "@warden/contracts/json";

/**
 * The front matter of a SKILL.md (docs/skills.md). Its `tools` are the skill's scripts, each with
 * what an adapters CLI tool needs: a declared grade and flags (the descriptor fields), the args'
 * JSON Schema, and how the script is run. Nothing here grants anything: the scripts become tools
 * of domain `skill-<name>` that policy decides like any other.
 */

/** Interpreters a script may name; without one the script runs itself (it must be executable). */
export const SKILL_INTERPRETERS = ["sh", "bash", "python3", "node"] as const;

/** The folders of a skill whose files belong to it (and to its content hash), besides SKILL.md. */
export const SKILL_FOLDERS = ["scripts", "references", "assets"] as const;

const GradeDeclaredSchema = z.enum(GRADES, {
  error: (issue) =>
    issue.input === undefined
      ? "a script needs a declared grade: read (changes nothing), write (can be undone) or send (seen outside at once, cannot be undone)"
      : "a grade is read, write or send",
});

/** One script of a skill, as the tool it is registered as (its name is `skill-<skill>.<name>`). */
export const SkillToolSchema = ToolDescriptorSchema.omit({ name: true, version: true, inputSchema: true, network: true, secrets: true, preview: true }).extend({
  name: z.string().min(1).max(40),
  grade: GradeDeclaredSchema,
  /** The script's path inside the skill's folder, under `scripts/`. */
  script: z.string().min(1).max(300),
  interpreter: z.enum(SKILL_INTERPRETERS).optional(),
  /** The JSON Schema of the call's args (the tool's inputSchema). */
  args: JsonSchemaObjectSchema.default({ type: "object", properties: {} }),
  /** The script's arguments: an adapters argv template (`"{file}"`, `{ when, argv }`, `{ spread }`). */
  argv: z.array(JsonValueSchema).default([]),
  output: z.enum(["text", "json", "jsonl"]).default("text"),
  network: z.enum(["none", "host"]).default("none"),
  /** Folders of the skill the script may work in (the first is its working directory); path args are confined to them. */
  roots: z.array(z.string().min(1)).min(1).default(["."]),
  cwd: z.string().min(1).optional(),
  okExitCodes: z.array(z.int().min(0).max(255)).min(1).optional(),
});
export type SkillTool = z.infer<typeof SkillToolSchema>;

export const SkillFrontMatterSchema = z.strictObject({
  name: SkillNameSchema,
  version: VersionSchema,
  /** When to use it, in words a task would share: what activation matches first. */
  description: z.string().min(20).max(2_000),
  /** Phrases that activate the skill when every word of one appears in the task. */
  triggers: z.array(z.string().min(1).max(200)).max(32).default([]),
  tools: z.array(SkillToolSchema).max(32).default([]),
});
export type SkillFrontMatter = z.infer<typeof SkillFrontMatterSchema>;
