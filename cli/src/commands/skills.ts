import { resolve } from "node:path";
import { compareVersions } from "@warden/contracts/subjects";
import { type SkillRecord } from "@warden/contracts/descriptor";
import { latestSkills, listSkills, loadSkillDir } from "@warden/skills";
import { onePositional } from "../args.js";
import type { SKILLS_ADD_OPTIONS, SKILLS_LIST_OPTIONS, SKILLS_SHOW_OPTIONS } from "../command-list.js";
import { withBus } from "../connect.js";
import { shortHash } from "../domain/short-forms.js";
import { CliError, EXIT_OK } from "../errors.js";
import type { Command } from "../io.js";
import { emit, renderTable, TEXT_WIDTH } from "../output.js";
import { addSkillFolder, skillDescriptors } from "../skill-add.js";

/**
 * `warden skills add DIR`: checks a skill folder (errors at SKILL.md:line), registers its scripts
 * as tools of domain `skill-<name>` and stores the skill; `--dry-run` only checks and shows.
 */
export const skillsAddCommand: Command<typeof SKILLS_ADD_OPTIONS> = async ({ values, positionals }, io) => {
  const json = values.json ?? false;
  const dir = resolve(io.cwd, onePositional(positionals, "DIR (a skill folder with a SKILL.md)"));
  const loaded = await loadSkillDir(dir);
  if (!loaded.ok) throw new CliError("DESCRIPTOR_INVALID", `the skill is invalid:\n${loaded.message}`);
  const skill = loaded.skill;
  const descriptors = skillDescriptors(skill);
  if (!descriptors.ok) throw new CliError(descriptors.error.code, descriptors.error.message);
  const { name, version } = skill.frontMatter;
  if (values["dry-run"]) {
    emit(io, json, { ok: true, name, version, hash: skill.hash, descriptors: descriptors.value, files: skill.files }, () =>
      [
        `skill ${name} ${version} is valid (${shortHash(skill.hash)}, ${skill.files.length} files)`,
        ...(descriptors.value.length > 0
          ? [
              renderTable(descriptors.value, [
                { title: "TOOL", value: (d) => d.name },
                { title: "GRADE", value: (d) => d.grade },
                { title: "NETWORK", value: (d) => d.network ?? "-" },
              ]),
            ]
          : ["no scripts: it only teaches"]),
      ].join("\n"),
    );
    return EXIT_OK;
  }
  const added = await withBus(io, { name: values.as, creds: values.creds, fallback: "admin" }, (bus) => addSkillFolder(bus, skill, new Date().toISOString()));
  if (!added.ok) throw new CliError(added.error.code, added.error.message);
  const { record, created, tools } = added.value;
  const grades = new Map(record.tools.map((t) => [t.name, t.grade]));
  emit(io, json, { ok: true, name, version, hash: record.hash, created, domain: record.domain, tools }, () =>
    [
      `${created ? "added" : "unchanged"}: skill ${name} ${version} (${shortHash(record.hash)})`,
      ...(tools.length > 0
        ? [
            renderTable(tools, [
              { title: "TOOL", value: (t) => t.name },
              { title: "VERSION", value: (t) => t.version },
              { title: "GRADE", value: (t) => grades.get(t.name) ?? "?" },
              { title: "STATUS", value: (t) => t.status },
            ]),
            `its scripts run in the adapters service, with this folder in WARDEN_SKILLS_DIR and an identity that holds domain ${record.domain} (docs/skills.md)`,
          ]
        : ["no scripts: it only teaches"]),
    ].join("\n"),
  );
  return EXIT_OK;
};

/** `warden skills list`: the newest version of each skill (`--all`: every version). */
export const skillsListCommand: Command<typeof SKILLS_LIST_OPTIONS> = async ({ values }, io) => {
  const all = await withBus(io, { name: values.as, creds: values.creds, fallback: "admin" }, (bus) => listSkills(bus));
  const records = values.all ? all : latestSkills(all);
  emit(io, values.json ?? false, { skills: records }, () =>
    records.length === 0
      ? "no skills: add one with `warden skills add DIR`"
      : renderTable(
          records,
          [
            { title: "NAME", value: (r) => r.name },
            { title: "VERSION", value: (r) => r.version },
            { title: "TOOLS", value: (r) => r.tools.map((t) => `${t.name.slice(t.name.indexOf(".") + 1)}:${t.grade}`).join(",") || "-", min: 5 },
            { title: "HASH", value: (r) => shortHash(r.hash) },
            { title: "DESCRIPTION", value: (r) => r.description, min: 11 },
          ],
          { width: TEXT_WIDTH },
        ),
  );
  return EXIT_OK;
};

/** `warden skills show NAME [--version V]`: a skill's metadata, scripts and instructions. */
export const skillsShowCommand: Command<typeof SKILLS_SHOW_OPTIONS> = async ({ values, positionals }, io) => {
  const name = onePositional(positionals, "NAME (a skill, e.g. pdf-report)");
  const all = await withBus(io, { name: values.as, creds: values.creds, fallback: "admin" }, (bus) => listSkills(bus));
  const versions = all.filter((r) => r.name === name).sort((a, b) => compareVersions(a.version, b.version));
  const record = values.version === undefined ? versions.at(-1) : versions.find((r) => r.version === values.version);
  if (record === undefined) {
    const known = versions.map((r) => r.version).join(", ");
    throw new CliError("NOT_FOUND", `no skill ${name}${values.version === undefined ? "" : ` ${values.version}`}${known ? ` (versions: ${known})` : ""}`);
  }
  emit(io, values.json ?? false, record, () => showText(record));
  return EXIT_OK;
};

function showText(r: SkillRecord): string {
  return [
    `skill ${r.name} ${r.version}  ${r.hash}`,
    `added      ${r.addedAt}`,
    `when       ${r.description}`,
    `triggers   ${r.triggers.join(", ") || "-"}`,
    `tools      ${r.tools.map((t) => `${t.name} (${t.grade})`).join(", ") || "- (it only teaches)"}`,
    `files      ${r.files.map((f) => f.path).join(", ")}`,
    "",
    r.instructions,
  ].join("\n");
}
