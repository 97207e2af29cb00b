import { ensureTopology, type Bus } from "@warden/bus";
import type { PolicyDocument } from "@warden/contracts/policy";
import { supportDeskPolicy } from "@warden/example-support-desk";
import { putPolicyDocument } from "@warden/policy";
import type { LoadedSkill } from "@warden/skills";
import { CliError } from "../errors.js";
import { addSkillFolder } from "../skill-add.js";

/**
 * What only the admin may do before any service starts: the streams and buckets and the demo's
 * policy document. The skills follow once the registry runs ({@link addSkills}); then the caller
 * closes the admin's connection: no running service holds it.
 */
export async function provisionTopology(admin: Bus, o: { readonly demo: boolean }): Promise<{ readonly policy?: PolicyDocument }> {
  await ensureTopology(admin);
  if (!o.demo) return {};
  const put = await putPolicyDocument(admin, supportDeskPolicy);
  if (!put.ok) throw new Error(`demo policy refused: ${put.error.message}`);
  return { policy: put.value.document };
}

/** The operator's skills, added as `warden skills add` would (a changed version is refused); their tools register with the running registry. */
export async function addSkills(admin: Bus, skills: readonly LoadedSkill[]): Promise<void> {
  for (const skill of skills) {
    const added = await addSkillFolder(admin, skill, new Date().toISOString());
    if (!added.ok) throw new CliError(added.error.code, `${skill.dir}: ${added.error.message}`);
  }
}
