import { describe, expect, it } from "vitest";
import { readEvent, silentLogger } from "@warden/bus";
import { startSubagentService, triageAgent } from "@warden/subagent";
import { startScriptedOpenAi } from "@warden/testing";
import { useTestWarden } from "../support/use-test-warden.js";
import { subagentIdentity, toolNames } from "./subagent-fixture.js";

describe("the demo's agent.triage over the support desk", () => {
  const t = useTestWarden({ demo: true }, async (w) => ({
    model: w.track(await startScriptedOpenAi()),
  }));
  // the service connects as the subagent identity `warden up` provisions for the demo, with the pinned approver key
  const asSubagentService = async () => ({
    bus: await t.w.nats.connectAs(subagentIdentity([triageAgent])),
    log: silentLogger(),
    approverKeys: t.w.approverKeys,
  });

  it("answers a call with a clear error naming OPENAI_BASE_URL and OPENAI_API_KEY when no endpoint is configured", async () => {
    const service = await startSubagentService({ ...(await asSubagentService()), agents: [triageAgent], endpoint: { defaultModel: "gpt-4o-mini" } });
    try {
      expect(service.executor.registered).toEqual([expect.objectContaining({ name: "agent.triage", status: "enabled" })]);
      const alice = await t.w.person("alice", { mode: "human" });
      const r = await alice.call("agent.triage", { task: "look into session 1" }, { timeoutMs: 15_000 });
      expect(r).toMatchObject({ ok: false, status: "failed", error: { code: "UNAVAILABLE", retryable: false, details: { missing: ["OPENAI_BASE_URL", "OPENAI_API_KEY"] } } });
      expect(r.error?.message).toMatch(/set OPENAI_BASE_URL .* and OPENAI_API_KEY/);
      // a write-grade subagent: the demo policy holds a model's delegation to it for a person
      const validated = await readEvent(t.w.bus, "agent", r.callId, "ToolArgsValidated");
      expect(validated?.data.grade).toBe("write");
    } finally {
      await service.stop();
    }
  });

  it("runs over the support-desk reads with a configured endpoint and shows its model the tools the caller's scope allows", async () => {
    const service = await startSubagentService({ ...(await asSubagentService()), agents: [triageAgent], endpoint: { baseURL: t.model.baseURL, defaultModel: "m-triage" } });
    try {
      t.model.script("m-triage", [
        { toolCalls: [{ name: "session__fetch", arguments: { id: 1 } }, { name: "kb__search", arguments: { query: "refund damaged" } }] },
        { content: "Summary: broken blender, refund wanted. Suggested reply: we will refund within 5-10 days." },
      ]);
      const alice = await t.w.person("alice", { mode: "human" });
      const r = await alice.call("agent.triage", { task: "triage session 1", summary: "customer is upset" }, { scope: "ticket_page", timeoutMs: 15_000 });
      expect(r).toMatchObject({ ok: true, data: { stoppedBy: "answer" } });
      const [first] = t.model.requestsFor("m-triage");
      // ticket.fill is shown on the ticket page; ticket.submit is a write the demo policy does not show a model
      expect(toolNames(first!.body)).toEqual(["kb__search", "session__fetch", "ticket__fill"]);
      expect(first!.body.messages[1]?.content).toMatch(/Context from the caller:\ncustomer is upset/);
      const view = await readEvent(t.w.bus, "agent", r.callId, "ToolViewCompiled", "t1");
      expect(view?.data.hidden).toEqual([expect.objectContaining({ name: "ticket.submit", reason: "write_not_opted_in_for_llm" })]);
    } finally {
      await service.stop();
    }
  });
});
