import { readdir } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { Bus } from "@warden/bus";
import { BUCKET_SKILLS } from "@warden/contracts/subjects";
import { loadSkillDir, readSkill, type LoadedSkill } from "@warden/skills";
import { ManifestError, type LoadedManifest } from "../manifest/load-manifests.js";
import { skillManifest } from "./skill-manifest.js";

/** Every skill folder in a folder (each subfolder not starting with `.` is one); all problems are reported together. */
export async function loadSkillsDir(dir: string): Promise<LoadedSkill[]> {
  const root = resolve(dir);
  let names: string[];
  try {
    names = (await readdir(root, { withFileTypes: true })).filter((e) => e.isDirectory() && !e.name.startsWith(".")).map((e) => e.name).sort();
  } catch (err) {
    throw new ManifestError(`cannot read the skills folder ${root}: ${(err as Error).message}`, { cause: err });
  }
  const skills: LoadedSkill[] = [];
  const errors: string[] = [];
  for (const name of names) {
    const r = await loadSkillDir(join(root, name));
    if (r.ok) skills.push(r.skill);
    else errors.push(r.message);
  }
  if (errors.length > 0) throw new ManifestError(errors.join("\n"));
  return skills;
}

/**
 * The manifests of skills' scripts, for skills that were added as they are: a skill folder whose
 * name and version `warden_skills` does not hold, or holds with other content, does not run
 * (what runs is what the operator added, file for file).
 */
export async function skillManifests(bus: Bus, skills: readonly LoadedSkill[]): Promise<LoadedManifest[]> {
  const out: LoadedManifest[] = [];
  const errors: string[] = [];
  for (const skill of skills) {
    const { name, version } = skill.frontMatter;
    const stored = await readSkill(bus, name, version);
    if (stored === undefined) {
      errors.push(`${skill.file}: skill ${name} ${version} is not in ${BUCKET_SKILLS}: add it first (\`warden skills add ${skill.dir}\`)`);
      continue;
    }
    if (stored.hash !== skill.hash) {
      errors.push(`${skill.file}: skill ${name} ${version} differs from what was added (${stored.hash}, this folder ${skill.hash}): give the changed skill a new version and add it`);
      continue;
    }
    // a skill with no scripts only teaches: no executor to run
    if (skill.frontMatter.tools.length === 0) continue;
    const m = skillManifest(skill);
    if (m.ok) out.push(m.loaded);
    else errors.push(m.message);
  }
  if (errors.length > 0) throw new ManifestError(errors.join("\n"));
  return out;
}
