import { cpSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ManifestError, startAdaptersService } from "@warden/adapters";
import { readEvent, silentLogger } from "@warden/bus";
import type { SubagentDescriptorInput } from "@warden/subagent";
import { callEvents, eventTypes, writeSkillFolder } from "@warden/testing";
import { runWarden } from "../support/cli.js";
import { childRequests, outputOf, toolNames, useSubagentWarden } from "./subagent-fixture.js";

const REFUND_CHECK = join(import.meta.dirname, "../../services/adapters/examples/skills/refund-check");

/** A skill whose scripts span the grades: what it teaches never changes what each may do. */
const LEDGER = {
  frontMatter: {
    name: "ledger",
    version: "1.0.0",
    description: "Use when a customer's ledger balance needs checking, or a ledger correction must be posted.",
    triggers: ["ledger balance"],
    tools: [
      {
        name: "balance",
        title: "Read the ledger balance",
        description: "Use to read the balance of the sample ledger.",
        grade: "read",
        script: "scripts/balance.sh",
        interpreter: "sh",
      },
      {
        name: "post",
        title: "Post a ledger correction",
        description: "Use to post a correction to the customer's ledger; it is seen by the customer at once.",
        grade: "send",
        script: "scripts/post.sh",
        interpreter: "sh",
        args: { type: "object", properties: { amount: { type: "integer" } }, required: ["amount"] },
        argv: ["{amount}"],
      },
    ],
  },
  instructions: "# Ledger work\n\nRead the balance first; post a correction only when a person asked for it.",
  files: { "scripts/balance.sh": "echo 42\n", "scripts/post.sh": 'echo "posted $1"\n' },
};

const AGENTS: SubagentDescriptorInput[] = [
  {
    name: "agent.helper",
    title: "Helper",
    description: "Use when a support question needs looking into before anyone answers it.",
    instructions: "You help a support desk look things up.",
    model: "m-helper",
    allowedTools: ["kb.search"],
  },
];

describe("skills: procedures that teach, scripts that are tools like any other", () => {
  const s = useSubagentWarden(AGENTS, {}, async ({ w }) => {
    const bot = await w.agent("support-bot", { timeoutMs: 20_000 });
    const ledgerDir = writeSkillFolder(LEDGER);
    // the operator adds the skills, then runs their scripts in the adapters (an executor of their domains)
    for (const dir of [REFUND_CHECK, ledgerDir]) {
      const added = await runWarden(w.nats.home.dir, "skills", "add", dir);
      expect(added.code, added.err).toBe(0);
    }
    w.track(
      await startAdaptersService({
        bus: await w.nats.connectAs({ kind: "executor", name: "adapters", domains: ["skill-refund-check", "skill-ledger"] }),
        log: silentLogger(),
        manifests: [],
        skills: skillsFolder([REFUND_CHECK, ledgerDir]),
        env: {},
        approverKeys: w.approverKeys,
      }),
    );
    return { bot };
  });

  it("runs a skill's script as a CLI tool through every gate, its events on the stream", async () => {
    const r = await s.bot.call("skill-refund-check.window", { purchased: "2025-01-01", today: "2025-01-20" }, { mode: "plan" });
    expect(r).toMatchObject({ ok: true, data: { exitCode: 0, network: "none", stdout: { purchased: "2025-01-01", days: 19, inside: true } } });
    expect(eventTypes(await callEvents(s.w.bus, r.callId))).toEqual(["ToolCallRequested", "ToolArgsValidated", "ToolPolicyChecked", "ToolCallStarted", "ToolCallFinished"]);
  });

  it("does not run a skill folder that was never added, or that changed after it was added", async () => {
    const bus = await s.w.nats.connectAs({ kind: "executor", name: "adapters-2", domains: ["skill-refund-check", "skill-unadded"] });
    const unadded = skillsFolder([writeSkillFolder({ ...LEDGER, frontMatter: { ...LEDGER.frontMatter, name: "unadded" } })]);
    const refused = await startAdaptersService({ bus, log: silentLogger(), manifests: [], skills: unadded, env: {} }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ManifestError);
    expect((refused as Error).message).toMatch(/skill unadded 1\.0\.0 is not in warden_skills: add it first/);

    const changed = mkdtempSync(join(tmpdir(), "warden-skills-changed-"));
    cpSync(REFUND_CHECK, join(changed, "refund-check"), { recursive: true });
    writeFileSync(join(changed, "refund-check/scripts/refund-window.sh"), 'echo \'{"inside":true}\'\n');
    const tampered = await startAdaptersService({ bus, log: silentLogger(), manifests: [], skills: changed, env: {} }).catch((e: unknown) => e);
    expect((tampered as Error).message).toMatch(/skill refund-check 1\.0\.0 differs from what was added/);
  });

  it("never widens: a model never sees a skill's send script, and a call to it waits for a person", async () => {
    const view = await (await s.w.agent("support-bot", { mode: "llm" })).toolView({ explain: true });
    if (!view.ok) throw new Error(view.error.message);
    expect(view.value.view.tools.map((t) => t.name)).toContain("skill-ledger.balance");
    expect(view.value.view.tools.map((t) => t.name)).not.toContain("skill-ledger.post");
    expect(view.value.view.hidden).toContainEqual(expect.objectContaining({ name: "skill-ledger.post", reason: "send_never_listed_for_llm" }));

    const post = await s.bot.call("skill-ledger.post", { amount: 5 }, { mode: "plan" });
    expect(post).toMatchObject({ ok: false, status: "awaiting_approval" });
    expect(eventTypes(await callEvents(s.w.bus, post.callId))).not.toContain("ToolCallStarted");
  });

  it("gives a subagent the instructions of a skill its task matches, and its script as a child call through the gates", async () => {
    s.model.script("m-helper", [
      { toolCalls: [{ name: "skill-refund-check__window", arguments: { purchased: "2025-01-01", today: "2025-01-20" } }] },
      { content: "Bought 19 days ago: inside the window, propose a full refund." },
    ]);
    const r = await s.bot.call("agent.helper", { task: "The customer wants a refund for a blender bought on 2025-01-01" }, { mode: "plan", runId: "run-skill" });
    const out = outputOf(r);
    expect(out).toMatchObject({ stoppedBy: "answer", answer: "Bought 19 days ago: inside the window, propose a full refund." });
    expect(out.childCalls.map((c) => [c.tool, c.status])).toEqual([["skill-refund-check.window", "succeeded"]]);

    const [first] = s.model.requestsFor("m-helper").slice(-2);
    const system = String(first!.body.messages[0]!.content);
    expect(system).toMatch(/^Skills for this task: .*A skill grants no permission/);
    expect(system).toContain("## Skill refund-check 1.0.0\n\n# Checking a refund");
    expect(system).toContain("You help a support desk look things up.");
    expect(toolNames(first!.body)).toEqual(["kb__search", "skill-refund-check__window"]);

    const viewed = await readEvent(s.w.bus, "agent", r.callId, "ToolViewCompiled", "t1");
    expect(viewed?.data.skills).toEqual([expect.objectContaining({ name: "refund-check", version: "1.0.0", reasons: expect.arrayContaining(['trigger "refund" is in the task']) })]);
    expect(viewed?.data.tools.map((t) => t.name)).toContain("skill-refund-check.window");

    const [child] = await childRequests(s.w.bus, "agent-helper", r.callId);
    const events = await callEvents(s.w.bus, child!.callId);
    expect(eventTypes(events)).toEqual(["ToolCallRequested", "ToolArgsValidated", "ToolPolicyChecked", "ToolCallStarted", "ToolCallFinished"]);
    const checked = events.find((e) => e.type === "ToolPolicyChecked");
    expect(checked?.type === "ToolPolicyChecked" && checked.data.ruleIds).toContain("attenuation.checked");
  });

  it("gives a subagent no skill for an unrelated task", async () => {
    s.model.script("m-helper", [{ content: "Reset it from the login page." }]);
    const r = await s.bot.call("agent.helper", { task: "How does a user reset a forgotten password?" }, { mode: "plan" });
    expect(outputOf(r).stoppedBy).toBe("answer");
    const [request] = s.model.requestsFor("m-helper").slice(-1);
    const system = String(request!.body.messages[0]!.content);
    expect(system).not.toContain("Skill");
    expect(system).toMatch(/^You help a support desk look things up\./);
    expect(toolNames(request!.body)).toEqual(["kb__search"]);
    expect((await readEvent(s.w.bus, "agent", r.callId, "ToolViewCompiled", "t1"))?.data).not.toHaveProperty("skills");
  });

  it("offers a read subagent only the read scripts of an active skill: the send one is hidden, not asked for", async () => {
    s.model.script("m-helper", [{ content: "The balance is 42." }]);
    const r = await s.bot.call("agent.helper", { task: "What is the customer's ledger balance?" }, { mode: "plan" });
    expect(outputOf(r).stoppedBy).toBe("answer");
    const [request] = s.model.requestsFor("m-helper").slice(-1);
    expect(String(request!.body.messages[0]!.content)).toContain("## Skill ledger 1.0.0");
    expect(toolNames(request!.body)).toEqual(["kb__search", "skill-ledger__balance"]);
    const viewed = await readEvent(s.w.bus, "agent", r.callId, "ToolViewCompiled", "t1");
    expect(viewed?.data.hidden).toContainEqual(expect.objectContaining({ name: "skill-ledger.post", reason: "above_subagent_grade" }));
  });
});

/** A folder of skill folders (as WARDEN_SKILLS_DIR holds them): copies of the given ones. */
function skillsFolder(dirs: readonly string[]): string {
  const root = mkdtempSync(join(tmpdir(), "warden-skills-"));
  for (const d of dirs) cpSync(d, join(root, d.split("/").at(-1)!), { recursive: true });
  return root;
}
