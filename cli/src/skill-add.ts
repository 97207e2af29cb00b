import { skillManifest, toolDescriptor } from "@warden/adapters";
import type { Bus } from "@warden/bus";
import { fail, ok, type Outcome } from "@warden/contracts/errors";
import { ToolDescriptorSchema, type RegisteredTool, type SkillRecord, type ToolDescriptor } from "@warden/contracts/descriptor";
import { createRegistryClient } from "@warden/sdk";
import { addSkill, readSkill, skillRecord, type LoadedSkill } from "@warden/skills";

export interface AddedSkill {
  readonly record: SkillRecord;
  /** False when this exact content was added before (nothing changed). */
  readonly created: boolean;
  readonly tools: readonly RegisteredTool[];
}

/** The descriptors a skill's scripts register, exactly as the adapters register them when they run the skill. */
export function skillDescriptors(skill: LoadedSkill): Outcome<ToolDescriptor[]> {
  // a skill with no scripts only teaches: no tools, no manifest
  if (skill.frontMatter.tools.length === 0) return ok([]);
  const m = skillManifest(skill);
  if (!m.ok) return fail("DESCRIPTOR_INVALID", `the skill is invalid:\n${m.message}`);
  return ok(m.loaded.manifest.tools.map((t) => ToolDescriptorSchema.parse(toolDescriptor(m.loaded.manifest.domain, t, m.loaded.manifest.secrets))));
}

/**
 * Adds a skill: refuses other content under a stored version before touching anything, registers
 * its scripts as tools (enabled; the registry lints them as any descriptor), then stores the
 * skill in `warden_skills`. Running it again with the same folder changes nothing.
 */
export async function addSkillFolder(bus: Bus, skill: LoadedSkill, addedAt: string): Promise<Outcome<AddedSkill>> {
  const descriptors = skillDescriptors(skill);
  if (!descriptors.ok) return descriptors;
  const record = skillRecord(skill, addedAt);
  const stored = await readSkill(bus, record.name, record.version);
  if (stored !== undefined && stored.hash !== record.hash) {
    return fail(
      "REGISTRATION_CONFLICT",
      `skill ${record.name} ${record.version} was added with other content (${stored.hash}, this folder ${record.hash}): a version is immutable, give the changed skill a new version`,
    );
  }
  let tools: RegisteredTool[] = [];
  if (descriptors.value.length > 0) {
    const r = await createRegistryClient(bus).register(descriptors.value, "enabled");
    if (!r.ok) return r;
    tools = r.value.registered;
  }
  const added = await addSkill(bus, record);
  if (!added.ok) return added;
  return ok({ record: added.value.record, created: added.value.created, tools });
}
