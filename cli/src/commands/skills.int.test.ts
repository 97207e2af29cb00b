import { cpSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger, type Bus } from "@warden/bus";
import { SkillRecordSchema } from "@warden/contracts/descriptor";
import { startRegistryService } from "@warden/registry";
import { createRegistryClient } from "@warden/sdk";
import { readSkill } from "@warden/skills";
import { startTestNats, writeSkillFolder, type TestNats } from "@warden/testing";
import { runCli } from "../run-cli.js";

const EXAMPLE = join(import.meta.dirname, "../../../services/adapters/examples/skills/refund-check");

const script = {
  name: "tally",
  title: "Tally the lines",
  description: "Use to count the lines of the skill's sample notes.",
  grade: "read",
  script: "scripts/tally.sh",
  interpreter: "sh",
  args: { type: "object", properties: {} },
};
const frontMatter = {
  name: "notes",
  version: "1.0.0",
  description: "Use when meeting notes need counting or summarising for the team.",
  triggers: ["meeting notes"],
  tools: [script],
};

describe("warden skills add | list | show", () => {
  let nats: TestNats;
  let bus: Bus;
  let registry: { stop(): Promise<void> };

  const run = async (...argv: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(argv, {
      env: { WARDEN_HOME: nats.home.dir },
      cwd: tmpdir(),
      out: (t) => out.push(t),
      err: (t) => err.push(t),
      stopSignal: () => new Promise(() => {}),
    });
    return { code, out: out.join("\n"), err: err.join("\n") };
  };
  const tools = async () => {
    const r = await createRegistryClient(bus).list();
    if (!r.ok) throw new Error(r.error.message);
    return r.value;
  };

  beforeAll(async () => {
    nats = await startTestNats();
    bus = await nats.bus("skills-test");
    registry = await startRegistryService({ bus: await nats.connectAs({ kind: "service", name: "registry", role: "registry" }), log: silentLogger() });
  });
  afterAll(async () => {
    await registry?.stop();
    await nats?.stop();
  });

  it("adds a skill: its scripts become enabled tools of domain skill-<name> with their declared grades, the skill is stored with its content hash", async () => {
    const r = await run("skills", "add", EXAMPLE, "--json");
    expect(r.code, r.err).toBe(0);
    const doc = JSON.parse(r.out) as { hash: string };
    expect(doc).toMatchObject({ ok: true, name: "refund-check", version: "1.0.0", created: true, domain: "skill-refund-check", tools: [{ name: "skill-refund-check.window", version: "1.0.0", status: "enabled", created: true }] });
    const window = (await tools()).find((t) => t.descriptor.name === "skill-refund-check.window");
    expect(window?.descriptor).toMatchObject({ grade: "read", network: "none", idempotent: true, destructive: false });
    const stored = await readSkill(bus, "refund-check", "1.0.0");
    expect(SkillRecordSchema.parse(stored)).toMatchObject({ hash: doc.hash, triggers: ["refund", "money back"], tools: [{ name: "skill-refund-check.window", grade: "read" }] });
    expect(stored?.instructions).toMatch(/^# Checking a refund/);
    expect(stored?.files.map((f) => f.path)).toEqual(["SKILL.md", "references/policy.md", "scripts/refund-window.sh"]);
  });

  it("takes the same folder again as unchanged, and refuses a changed script under the same version, registering nothing", async () => {
    expect(JSON.parse((await run("skills", "add", EXAMPLE, "--json")).out)).toMatchObject({ ok: true, created: false });
    const copy = mkdtempSync(join(tmpdir(), "warden-skill-copy-"));
    cpSync(EXAMPLE, copy, { recursive: true });
    writeFileSync(join(copy, "scripts/refund-window.sh"), "#!/bin/sh\necho '{\"inside\":true}'\n");
    const before = (await tools()).length;
    const r = await run("skills", "add", copy, "--json");
    expect(r.code).toBe(1);
    expect(JSON.parse(r.out)).toMatchObject({ ok: false, error: { code: "REGISTRATION_CONFLICT", message: expect.stringMatching(/a version is immutable/) } });
    expect((await tools()).length).toBe(before);
  });

  it("refuses a bad SKILL.md with file:line for each problem: no name, a script with no grade, a script outside the folder, and stores nothing", async () => {
    const dir = writeSkillFolder({
      frontMatter: { version: "1.0.0", description: frontMatter.description, tools: [{ ...script, grade: undefined }, { ...script, name: "escape", script: "../../../bin/sh" }] },
    });
    const r = await run("skills", "add", dir);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/SKILL\.md:2:\d+: name: a skill needs a name/);
    expect(r.err).toMatch(/SKILL\.md:\d+:\d+: tools\[0\]\.grade: a script needs a declared grade/);
    const missing = writeSkillFolder({ frontMatter });
    const m = await run("skills", "add", missing);
    expect(m.err).toMatch(/SKILL\.md:\d+:\d+: tools\[0\]\.script: scripts\/tally\.sh is not in the skill's folder/);
    const outside = writeSkillFolder({ frontMatter: { ...frontMatter, tools: [{ ...script, script: "../../../bin/sh" }] } });
    expect((await run("skills", "add", outside)).err).toMatch(/tools\[0\]\.script: \.\.\/\.\.\/\.\.\/bin\/sh is not a file of the skill's scripts\/ folder/);
    expect(await readSkill(bus, "notes", "1.0.0")).toBeUndefined();
  });

  it("refuses a script declared read whose flags say destructive, as the registry's lint refuses the descriptor", async () => {
    const dir = writeSkillFolder({ frontMatter: { ...frontMatter, name: "wiper", tools: [{ ...script, destructive: true }] }, files: { "scripts/tally.sh": "rm -rf .\n" } });
    const r = await run("skills", "add", dir, "--json");
    expect(r.code).toBe(1);
    expect(JSON.parse(r.out)).toMatchObject({ ok: false, error: { code: "DESCRIPTOR_INVALID", message: expect.stringMatching(/SKILL\.md:\d+:\d+: tools\[0\]: read-not-destructive: /) } });
    // and the registry itself refuses such a descriptor, whoever sends it
    const direct = await createRegistryClient(bus).register([
      { name: "skill-wiper.tally", version: "1.0.0", title: script.title, description: script.description, grade: "read", destructive: true, inputSchema: script.args },
    ]);
    expect(direct).toMatchObject({ ok: false, error: { code: "DESCRIPTOR_INVALID" } });
    expect((await tools()).some((t) => t.descriptor.name.startsWith("skill-wiper."))).toBe(false);
  });

  it("refuses anyone but the admin: an executor of the skill's own domain may register its tools, never store the skill", async () => {
    await nats.home.addIdentity({ kind: "executor", name: "skill-executor", domains: ["skill-notes"] });
    const dir = writeSkillFolder({ frontMatter: { ...frontMatter, version: "0.9.0" }, files: { "scripts/tally.sh": "wc -l notes.txt\n" } });
    const r = await run("skills", "add", dir, "--as", "skill-executor", "--json");
    expect(r.code).toBe(1);
    expect(JSON.parse(r.out)).toMatchObject({ ok: false, error: { code: "FORBIDDEN", message: expect.stringMatching(/only the admin may add skills/) } });
    expect(await readSkill(bus, "notes", "0.9.0")).toBeUndefined();
  });

  it("lists the newest version of each skill and shows one with its instructions", async () => {
    const dir = writeSkillFolder({ frontMatter: { ...frontMatter, tools: [] }, instructions: "Count the notes, then summarise them in three lines." });
    expect((await run("skills", "add", dir)).code).toBe(0);
    const two = writeSkillFolder({ frontMatter: { ...frontMatter, version: "1.1.0", tools: [] }, instructions: "Count, then summarise in two lines." });
    expect((await run("skills", "add", two)).code).toBe(0);

    const list = await run("skills", "list");
    expect(list.out).toMatch(/^NAME\s+VERSION\s+TOOLS\s+HASH\s+DESCRIPTION/);
    expect(list.out).toMatch(/\nnotes\s+1\.1\.0\s+-\s+sha256:/);
    expect(list.out).toMatch(/\nrefund-check\s+1\.0\.0\s+window:read\s+/);
    expect(list.out.split("\n").every((l) => l.length <= 100)).toBe(true);
    const all = JSON.parse((await run("skills", "list", "--all", "--json")).out) as { skills: { name: string; version: string }[] };
    expect(all.skills.filter((s) => s.name === "notes").map((s) => s.version)).toEqual(["1.0.0", "1.1.0"]);

    const show = await run("skills", "show", "notes");
    expect(show.out).toMatch(/^skill notes 1\.1\.0 /);
    expect(show.out).toContain("triggers   meeting notes");
    expect(show.out).toMatch(/Count, then summarise in two lines\.$/);
    expect(JSON.parse((await run("skills", "show", "notes", "--version", "1.0.0", "--json")).out)).toMatchObject({ version: "1.0.0" });
    const none = await run("skills", "show", "notes", "--version", "9.9.9", "--json");
    expect(JSON.parse(none.out)).toMatchObject({ ok: false, error: { code: "NOT_FOUND", message: "no skill notes 9.9.9 (versions: 1.0.0, 1.1.0)" } });
  });

  it("checks a folder with --dry-run, without NATS", async () => {
    const out: string[] = [];
    const code = await runCli(["skills", "add", EXAMPLE, "--dry-run"], {
      env: { NATS_URL: "nats://127.0.0.1:1" },
      cwd: tmpdir(),
      out: (t) => out.push(t),
      err: () => {},
      stopSignal: () => new Promise(() => {}),
    });
    expect(code).toBe(0);
    expect(out.join("\n")).toMatch(/^skill refund-check 1\.0\.0 is valid \(sha256:[0-9a-f]+…, 3 files\)\nTOOL\s+GRADE\s+NETWORK\nskill-refund-check\.window\s+read\s+none/);
  });
});
