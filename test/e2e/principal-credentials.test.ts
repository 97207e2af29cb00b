import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { readEvent } from "@warden/bus";
import { defineTool, SecretStore } from "@warden/executor";
import type { SubagentDescriptorInput } from "@warden/subagent";
import { callEvents, eventually } from "@warden/testing";
import { childRequests, outputOf, useSubagentWarden } from "./subagent-fixture.js";

const TOKENS = { "support-bot": `bot-${randomBytes(12).toString("hex")}`, "agent-crm": `sub-${randomBytes(12).toString("hex")}` };
const sha = (s: string) => createHash("sha256").update(s).digest("hex");

const AGENTS: SubagentDescriptorInput[] = [
  {
    name: "agent.crm",
    title: "CRM helper",
    description: "Use when a support question needs the customer's CRM account looked up.",
    instructions: "You look customers up in the CRM.",
    model: "m-crm",
    allowedTools: ["crm.whoami"],
    budget: { maxTurns: 3, maxToolCalls: 2, maxTokens: 5_000, timeoutMs: 20_000 },
  },
];

/** Tells which CRM credential it got by its hash; echoes it too, to be redacted. */
const whoami = defineTool({
  name: "crm.whoami",
  version: "1.0.0",
  title: "CRM whoami",
  description: "Use to see which CRM account the API sees for the person the call is for.",
  grade: "read",
  input: z.strictObject({}),
  secrets: ["crm_token"],
  actsAs: "caller",
  handler: async (_args, ctx) => {
    const token = await ctx.secrets.get("crm_token");
    return { tokenSha: sha(token), token };
  },
});

describe("credentials bound to the principal: a subagent's child call acts for whoever delegated", () => {
  const s = useSubagentWarden(
    AGENTS,
    {
      // the CRM executor registers crm.whoami before the subagent service, which checks its allowed tools exist
      beforeSubagents: async (w) => {
        const dir = mkdtempSync(join(tmpdir(), "warden-principal-credentials-"));
        const secretsFile = join(dir, "secrets.yaml");
        // the subagent has a token of its own: it must not be the one used for the delegator's task
        writeFileSync(secretsFile, `crm_token:\n  support-bot: ${TOKENS["support-bot"]}\n  agent-crm: ${TOKENS["agent-crm"]}\n`);
        await w.startExecutor("crm", [whoami], { identity: "crm-1", secrets: new SecretStore([{ name: "crm_token", file: "crm_token", bind: "principal" }], { env: {}, secretsFile }) });
      },
    },
    async ({ w }) => ({ bot: await w.agent("support-bot", { timeoutMs: 20_000 }) }),
  );

  it("runs the child call with the delegating principal's token, and the policy decision and the result say so", async () => {
    s.model.script("m-crm", [{ toolCalls: [{ name: "crm__whoami", arguments: {} }] }, { content: "Looked up." }]);
    const r = await s.bot.call("agent.crm", { task: "who is this customer?" }, { mode: "plan", runId: "run-crm" });
    expect(outputOf(r)).toMatchObject({ stoppedBy: "answer", childCalls: [expect.objectContaining({ tool: "crm.whoami", status: "succeeded" })] });

    const [child] = await childRequests(s.w.bus, "agent-crm", r.callId);
    expect(child).toMatchObject({ principal: "agent-crm", parentCallId: r.callId });
    const decided = await readEvent(s.w.bus, "crm", child!.callId, "ToolPolicyChecked");
    expect(decided?.data).toMatchObject({ decision: "allow", onBehalfOf: "support-bot" });
    const finished = await eventually(async () => {
      const e = await readEvent(s.w.bus, "crm", child!.callId, "ToolCallFinished");
      expect(e).toBeDefined();
      return e!;
    });
    expect(finished.data).toMatchObject({ ok: true, output: { tokenSha: sha(TOKENS["support-bot"]), token: "[REDACTED:crm_token]" } });
    expect(finished.data.credentials).toEqual([{ secret: "crm_token", bind: "principal", principal: "support-bot" }]);
    const recorded = JSON.stringify([...(await callEvents(s.w.bus, child!.callId)), ...(await callEvents(s.w.bus, r.callId))]);
    for (const token of Object.values(TOKENS)) expect(recorded.includes(token)).toBe(false);
  });

  it("runs the delegator's own direct call with the same token, with no onBehalfOf on its decision", async () => {
    const r = await s.bot.call("crm.whoami", {}, { mode: "plan" });
    expect(r).toMatchObject({ ok: true, data: { tokenSha: sha(TOKENS["support-bot"]) } });
    const decided = await readEvent(s.w.bus, "crm", r.callId, "ToolPolicyChecked");
    expect(decided?.data.onBehalfOf).toBeUndefined();
  });
});
