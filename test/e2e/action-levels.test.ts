import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadManifestFile, startAdaptersService } from "@warden/adapters";
import { silentLogger } from "@warden/bus";
import { defineTool, ToolDefinitionError } from "@warden/executor";
import { z } from "zod";
import { createRegistryClient } from "@warden/sdk";
import { callEvents, eventually } from "@warden/testing";
import { usualPrincipals } from "../support/usual-principals.js";
import { useTestWarden } from "../support/use-test-warden.js";

/** Action types and permission levels: checked against the grade at registration, matched by policy rules. */
describe("action types and permission levels", () => {
  const t = useTestWarden({
    demo: true,
    policy: {
      version: "e2e-levels",
      principals: {
        ...usualPrincipals("alice", "planner"),
        model: { kind: "agent" },
        scout: { kind: "agent", scopes: ["external_read"] },
      },
      rules: [
        { id: "l5.needs_person", match: { level: "L5" }, effect: "require_approval", reason: "destructive or admin: a person confirms first" },
        // the document lifts the L4 default for one external write, on purpose: an allow may, unlike for L5
        { id: "mirror-ok", match: { tool: "notes.mirror", mode: "plan" }, effect: "allow", reason: "the plan mirrors notes to the wiki unattended" },
      ],
    },
  }, async (w) => {
    const note = (name: string, extra: { actionType?: "patch" | "delete" | "deploy"; destructive?: boolean; openWorld?: boolean }) =>
      defineTool({ name, version: "1.0.0", title: name, description: "Use when testing what a level asks of a call.", grade: "write", ...extra, input: z.strictObject({ id: z.string() }), handler: async ({ id }) => ({ id }) });
    await w.startExecutor("notes", [
      note("notes.append", { actionType: "patch" }),
      note("notes.erase", { actionType: "delete", destructive: true }),
      note("notes.publish", { openWorld: true }),
      note("notes.release", { actionType: "deploy" }),
      note("notes.mirror", { openWorld: true }),
    ]);
    const planner = await w.agent("planner");

    const contact = { name: "Jane Doe", contact: "jane.doe@example.com, +44 20 7946 0958", id: "C-100" };
    const read = (name: string, extra: { actionType?: "compute"; openWorld?: boolean; personalData?: "keep" }, out: unknown) =>
      defineTool({ name, version: "1.0.0", title: name, description: "Use when testing what a level asks of a read.", grade: "read", ...extra, input: z.strictObject({}), handler: async () => out });
    await w.startExecutor("calc", [
      read("calc.total", { actionType: "compute" }, { total: 42 }),
      read("calc.company", { openWorld: true }, contact),
      read("calc.company_raw", { openWorld: true, personalData: "keep" }, contact),
    ]);
    // the same local compute as a command the adapters run in their sandbox (no network)
    const dir = mkdtempSync(join(tmpdir(), "warden-levels-"));
    writeFileSync(
      join(dir, "sbx.json"),
      JSON.stringify({
        domain: "sbx",
        tools: [
          {
            name: "total",
            version: "1.0.0",
            title: "Total",
            description: "Use when testing local compute inside the sandbox.",
            grade: "read",
            actionType: "compute",
            inputSchema: { type: "object", additionalProperties: false },
            cli: { command: "/bin/sh", argv: ["-c", "echo 42"], roots: ["."] },
          },
        ],
      }),
    );
    w.track(
      await startAdaptersService({
        bus: await w.nats.connectAs({ kind: "executor", name: "sbx-adapters", domains: ["sbx"] }),
        log: silentLogger(),
        manifests: [await loadManifestFile(join(dir, "sbx.json"))],
        env: {},
        approverKeys: w.approverKeys,
      }),
    );
    return { planner };
  });

  it("lets a plan's L2 patch run and makes its L5 delete wait for a person, by the rule that matched the level", async () => {
    expect(await t.planner.call("notes.append", { id: "n1" }, { mode: "plan" })).toMatchObject({ ok: true, status: "succeeded" });
    const erase = await t.planner.call("notes.erase", { id: "n1" }, { mode: "plan" });
    expect(erase.status).toBe("awaiting_approval");
    const alice = await t.w.approver("alice");
    const pending = await alice.pending();
    const card = pending.ok ? pending.value.find((p) => p.callId === erase.callId) : undefined;
    // the L5 default asks a person whoever calls; the document's rule on the level agrees and is named too
    expect(card).toMatchObject({ ruleIds: ["default.level.L5.plan", "l5.needs_person"], reason: "destructive or admin (L5): a person confirms it, whoever asks" });
  });

  it("makes an L4 external write wait for a person in plan and human modes, unless a rule of the document allows it", async () => {
    const alice = await t.w.approver("alice");
    const person = await t.w.person("alice");
    const cards = async (callId: string) => {
      const p = await alice.pending();
      return p.ok ? p.value.filter((c) => c.callId === callId) : [];
    };
    for (const [tool, mode, who] of [["notes.publish", "plan", t.planner], ["notes.release", "plan", t.planner], ["notes.publish", "human", person]] as const) {
      const r = await who.call(tool, { id: "n2" }, { mode });
      expect(r.status, `${tool} in ${mode} mode`).toBe("awaiting_approval");
      // the card is read from the stream: wait for it rather than for a time
      const [card] = await eventually(async () => {
        const found = await cards(r.callId);
        expect(found).toHaveLength(1);
        return found;
      });
      expect(card).toMatchObject({ level: "L4", ruleIds: [`default.level.L4.${mode}`], reason: "external write (L4): a person confirms it, unless the policy document allows it" });
      await alice.deny(card!.approvalId, card!.argsHash, "not now");
    }
    // the document's allow lifts it for the plan; the same tool in human mode still waits
    expect(await t.planner.call("notes.mirror", { id: "n2" }, { mode: "plan" })).toMatchObject({ ok: true, status: "succeeded" });
    expect((await person.call("notes.mirror", { id: "n2" }, { mode: "human" })).status).toBe("awaiting_approval");
  });

  it("refuses a descriptor whose action type contradicts its grade, at definition and at registration", async () => {
    expect(() =>
      defineTool({ name: "notes.purge", version: "1.0.0", title: "Purge", description: "Use when testing a contradiction.", grade: "read", actionType: "delete", input: z.strictObject({}), handler: () => ({}) }),
    ).toThrow(ToolDefinitionError);
    const r = await createRegistryClient(t.w.bus).register([
      { name: "notes.purge", version: "1.0.0", title: "Purge", description: "Use when testing a contradiction.", inputSchema: { type: "object" }, grade: "read", actionType: "delete" },
    ]);
    expect(r).toMatchObject({ ok: false, error: { code: "DESCRIPTOR_INVALID", message: expect.stringContaining("action type delete changes something") } });
  });

  it("runs a model's L1 local compute without asking only inside a sandbox; in process, a person confirms it", async () => {
    const model = await t.w.agent("model");
    expect(await model.call("sbx.total", {}, { mode: "llm" })).toMatchObject({ ok: true, status: "succeeded" });
    const inProcess = await model.call("calc.total", {}, { mode: "llm" });
    expect(inProcess.status).toBe("awaiting_approval");
    const decided = (await callEvents(t.w.bus, inProcess.callId)).find((e) => e.type === "ToolPolicyChecked");
    expect(decided?.data).toMatchObject({
      decision: "require_approval",
      ruleIds: ["default.level.L1.llm"],
      reason: "local compute (L1) outside a sandbox: a person confirms a model's call, unless the policy document allows it",
    });
    // a fixed plan chose it: the grade's table runs it
    expect(await t.planner.call("calc.total", {}, { mode: "plan" })).toMatchObject({ ok: true, status: "succeeded", data: { total: 42 } });
  });

  it("gives a model an L3 external read only with a scope, and masks the personal data it brings back", async () => {
    const model = await t.w.agent("model");
    expect(await model.call("calc.company", {}, { mode: "llm" })).toMatchObject({ ok: false, status: "rejected", error: { code: "POLICY_DENIED", message: expect.stringContaining("lacks external_read") } });
    const view = await model.toolView({ mode: "llm", explain: true });
    expect(view.ok && view.value.view.hidden.find((h) => h.name === "calc.company")).toMatchObject({ reason: "missing_principal_scope" });

    const scout = await t.w.agent("scout");
    const masked = await scout.call("calc.company", {}, { mode: "llm" });
    expect(masked).toMatchObject({ ok: true, data: { name: "Jane Doe", contact: "[email], [phone]", id: "C-100" } });
    const finished = (await callEvents(t.w.bus, masked.callId)).find((e) => e.type === "ToolCallFinished");
    expect(finished?.data).toMatchObject({ output: { contact: "[email], [phone]" }, personalDataRedacted: { email: 1, phone: 1 } });
    expect(JSON.stringify(await callEvents(t.w.bus, masked.callId))).not.toContain("jane.doe@example.com");
    // a tool that declares it keeps personal data does, and says so in its descriptor
    expect(await scout.call("calc.company_raw", {}, { mode: "llm" })).toMatchObject({ ok: true, data: { contact: "jane.doe@example.com, +44 20 7946 0958" } });
  });
});
