import { isNotFound, isPermissionViolation, kvCreateJson, kvGetJson, type Bus } from "@warden/bus";
import { BUCKET_SKILLS, compareVersions, skillKey } from "@warden/contracts/subjects";
import { fail, ok, type Outcome } from "@warden/contracts/errors";
import { SkillRecordSchema, type SkillRecord } from "@warden/contracts/descriptor";

/**
 * `warden_skills`: one SkillRecord per name and version. The admin writes it (`warden skills
 * add`); services read it. A version is immutable, as a tool descriptor's is.
 */

type KV = Awaited<ReturnType<Bus["kvm"]["open"]>>;

/** The bucket, or undefined when it was never provisioned (a Warden older than skills). */
async function openSkills(bus: Bus): Promise<KV | undefined> {
  try {
    return await bus.kvm.open(BUCKET_SKILLS);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

const NO_BUCKET = `the ${BUCKET_SKILLS} bucket does not exist: provision it as the admin (\`warden topology\`, or \`warden up\`)`;

/** Stores a skill version; the same content again changes nothing, other content under that version is refused. */
export async function addSkill(bus: Bus, record: SkillRecord): Promise<Outcome<{ created: boolean; record: SkillRecord }>> {
  const kv = await openSkills(bus);
  if (kv === undefined) return fail("UNAVAILABLE", NO_BUCKET);
  const key = skillKey(record.name, record.version);
  let created: boolean;
  try {
    created = await kvCreateJson(kv, key, record);
  } catch (err) {
    if (isPermissionViolation(err)) return fail("FORBIDDEN", `only the admin may add skills: this identity may not write ${BUCKET_SKILLS}`);
    throw err;
  }
  if (created) return ok({ created: true, record });
  const stored = await kvGetJson(kv, key, SkillRecordSchema);
  if (stored === undefined) return fail("REGISTRATION_CONFLICT", `${BUCKET_SKILLS} key ${key} holds something that is not a skill record; an operator must look at it`);
  if (stored.value.hash !== record.hash) {
    return fail(
      "REGISTRATION_CONFLICT",
      `skill ${record.name} ${record.version} was added with other content (${stored.value.hash}, now ${record.hash}): a version is immutable, give the changed skill a new version`,
      { stored: stored.value.hash, given: record.hash },
    );
  }
  return ok({ created: false, record: stored.value });
}

/** One skill version, or undefined. */
export async function readSkill(bus: Bus, name: string, version: string): Promise<SkillRecord | undefined> {
  const kv = await openSkills(bus);
  if (kv === undefined) return undefined;
  return (await kvGetJson(kv, skillKey(name, version), SkillRecordSchema))?.value;
}

/** Every stored version of every skill, by name then version; entries that are not skill records are left out. */
export async function listSkills(bus: Bus): Promise<SkillRecord[]> {
  const kv = await openSkills(bus);
  if (kv === undefined) return [];
  const keys: string[] = [];
  for await (const k of await kv.keys()) keys.push(k);
  const out: SkillRecord[] = [];
  for (const k of keys.sort()) {
    const e = await kvGetJson(kv, k, SkillRecordSchema);
    if (e !== undefined) out.push(e.value);
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : compareVersions(a.version, b.version)));
}

/** The newest version of each skill. */
export function latestSkills(records: readonly SkillRecord[]): SkillRecord[] {
  const newest = new Map<string, SkillRecord>();
  for (const r of records) {
    const had = newest.get(r.name);
    if (had === undefined || compareVersions(r.version, had.version) > 0) newest.set(r.name, r);
  }
  return [...newest.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
}
