import { join } from "node:path";
import { skillDomain } from "@warden/contracts/descriptor";
import { insideFolder, issuesMessage, type LoadedSkill, type SkillIssue } from "@warden/skills";
import type { LoadedManifest } from "../manifest/load-manifests.js";
import { ManifestSchema } from "../manifest/manifest-schema.js";
import { dotted } from "../manifest/parse-manifest.js";

export type SkillManifest = { readonly ok: true; readonly loaded: LoadedManifest } | { readonly ok: false; readonly issues: readonly SkillIssue[]; readonly message: string };

/** Fields of a skill's tool that live in a manifest tool's `cli` section. */
const CLI_FIELDS = ["argv", "roots", "cwd", "network", "output", "okExitCodes"] as const;

/**
 * A skill's scripts as an adapters manifest of domain `skill-<name>`: each script a CLI tool at
 * the skill's version, run from the skill's folder (no shell, confined to the skill's roots, an
 * empty environment, no network unless declared), validated as any manifest is. Problems are
 * reported at the SKILL.md line they come from.
 */
export function skillManifest(skill: LoadedSkill): SkillManifest {
  const fm = skill.frontMatter;
  const doc = {
    domain: skillDomain(fm.name),
    status: "enabled",
    tools: fm.tools.map((t) => {
      const { script, interpreter, args, argv, output, network, roots, cwd, okExitCodes, ...fields } = t;
      // braces are template syntax in argv; a path is literal text
      const path = join(skill.dir, insideFolder(script) ?? script).replace(/[{}]/g, (b) => b + b);
      return {
        ...fields,
        version: fm.version,
        inputSchema: args,
        cli: {
          command: interpreter ?? path,
          argv: interpreter === undefined ? argv : [path, ...argv],
          roots,
          ...(cwd === undefined ? {} : { cwd }),
          network,
          output,
          ...(okExitCodes === undefined ? {} : { okExitCodes }),
        },
      };
    }),
  };
  const parsed = ManifestSchema.safeParse(doc);
  if (parsed.success) return { ok: true, loaded: { manifest: parsed.data, file: skill.file, dir: skill.dir } };
  const issues = parsed.error.issues.map((i) => {
    const path = skillPath(i.path);
    const at = skill.positionOf(path);
    // the skill calls the inputSchema its args
    return { file: skill.file, path: dotted(path), message: i.message.replace(/\binputSchema\b/g, "args"), ...(at === undefined ? {} : { line: at.line, col: at.col }) };
  });
  return { ok: false, issues, message: issuesMessage(issues) };
}

/** A manifest path (`tools[0].cli.argv[1]`, `tools[0].inputSchema`) as the SKILL.md path it came from. */
function skillPath(path: readonly PropertyKey[]): PropertyKey[] {
  const [tools, i, section, ...rest] = path;
  if (tools !== "tools" || typeof i !== "number") return [...path];
  if (section === "cli" && (CLI_FIELDS as readonly PropertyKey[]).includes(rest[0] ?? "")) return ["tools", i, ...rest];
  if (section === "cli" && rest[0] === "command") return ["tools", i, "script"];
  if (section === "inputSchema") return ["tools", i, "args", ...rest];
  return [...path];
}
