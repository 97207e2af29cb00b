import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "@warden/bus";
import { defineTool, startExecutor, ToolDefinitionError } from "@warden/executor";
import { z } from "zod";
import { createAgentClient, createApproverClient, createRegistryClient, type AgentClient } from "@warden/sdk";
import { eventually } from "@warden/testing";
import { startTestWarden, type TestWarden } from "../support/warden.js";

/** Action types and permission levels: checked against the grade at registration, matched by policy rules. */
describe("action types and permission levels", () => {
  let w: TestWarden;
  let planner: AgentClient;
  beforeAll(async () => {
    w = await startTestWarden({
      demo: true,
      policy: {
        version: "e2e-levels",
        principals: { alice: { kind: "human", approves: ["write", "send"] }, planner: { kind: "agent" } },
        rules: [
          { id: "l5.needs_person", match: { level: "L5" }, effect: "require_approval", reason: "destructive or admin: a person confirms first" },
          // the document lifts the L4 default for one external write, on purpose: an allow may, unlike for L5
          { id: "mirror-ok", match: { tool: "notes.mirror", mode: "plan" }, effect: "allow", reason: "the plan mirrors notes to the wiki unattended" },
        ],
        budgets: {},
      },
    });
    const note = (name: string, extra: { actionType?: "patch" | "delete" | "deploy"; destructive?: boolean; openWorld?: boolean }) =>
      defineTool({ name, version: "1.0.0", title: name, description: "Use when testing what a level asks of a call.", grade: "write", ...extra, input: z.strictObject({ id: z.string() }), handler: async ({ id }) => ({ id }) });
    w.track(
      await startExecutor({
        bus: await w.nats.connectAs({ kind: "executor", name: "notes-executor", domains: ["notes"] }),
        log: silentLogger(),
        domain: "notes",
        approverKeys: w.approverKeys,
        tools: [
          note("notes.append", { actionType: "patch" }),
          note("notes.erase", { actionType: "delete", destructive: true }),
          note("notes.publish", { openWorld: true }),
          note("notes.release", { actionType: "deploy" }),
          note("notes.mirror", { openWorld: true }),
        ],
      }),
    );
    planner = createAgentClient({ bus: await w.agentBus("planner"), principal: "planner" });
  });
  afterAll(async () => w.stop());

  it("lets a plan's L2 patch run and makes its L5 delete wait for a person, by the rule that matched the level", async () => {
    expect(await planner.call("notes.append", { id: "n1" }, { mode: "plan" })).toMatchObject({ ok: true, status: "succeeded" });
    const erase = await planner.call("notes.erase", { id: "n1" }, { mode: "plan" });
    expect(erase.status).toBe("awaiting_approval");
    const alice = (await import("@warden/sdk")).createApproverClient({ bus: await w.humanBus("alice"), approver: "alice" });
    const pending = await alice.pending();
    const card = pending.ok ? pending.value.find((p) => p.callId === erase.callId) : undefined;
    // the L5 default asks a person whoever calls; the document's rule on the level agrees and is named too
    expect(card).toMatchObject({ ruleIds: ["default.level.L5.plan", "l5.needs_person"], reason: "destructive or admin (L5): a person confirms it, whoever asks" });
  });

  it("makes an L4 external write wait for a person in plan and human modes, unless a rule of the document allows it", async () => {
    const alice = createApproverClient({ bus: await w.humanBus("alice"), approver: "alice" });
    const person = createAgentClient({ bus: await w.humanBus("alice"), principal: "alice" });
    const cards = async (callId: string) => {
      const p = await alice.pending();
      return p.ok ? p.value.filter((c) => c.callId === callId) : [];
    };
    for (const [tool, mode, who] of [["notes.publish", "plan", planner], ["notes.release", "plan", planner], ["notes.publish", "human", person]] as const) {
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
    expect(await planner.call("notes.mirror", { id: "n2" }, { mode: "plan" })).toMatchObject({ ok: true, status: "succeeded" });
    expect((await person.call("notes.mirror", { id: "n2" }, { mode: "human" })).status).toBe("awaiting_approval");
  });

  it("refuses a descriptor whose action type contradicts its grade, at definition and at registration", async () => {
    expect(() =>
      defineTool({ name: "notes.purge", version: "1.0.0", title: "Purge", description: "Use when testing a contradiction.", grade: "read", actionType: "delete", input: z.strictObject({}), handler: () => ({}) }),
    ).toThrow(ToolDefinitionError);
    const r = await createRegistryClient(w.bus).register([
      { name: "notes.purge", version: "1.0.0", title: "Purge", description: "Use when testing a contradiction.", inputSchema: { type: "object" }, grade: "read", actionType: "delete" },
    ]);
    expect(r).toMatchObject({ ok: false, error: { code: "DESCRIPTOR_INVALID", message: expect.stringContaining("action type delete changes something") } });
  });
});
