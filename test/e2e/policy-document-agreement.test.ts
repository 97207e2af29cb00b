import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pino, type Logger } from "pino";
import { kvPutJson, readEvent, type Bus } from "@warden/bus";
import { BUCKET_POLICY } from "@warden/contracts/subjects";
import { type ToolDescriptorInput } from "@warden/contracts/descriptor";
import { POLICY_DOCUMENT_KEY, PolicyDocumentSchema } from "@warden/contracts/policy";
import { startPolicyService, type PolicyService } from "@warden/policy";
import { startRegistryService, type RegistryService } from "@warden/registry";
import { createAgentClient, createRegistryClient, type AgentClient, type RegistryClient } from "@warden/sdk";
import { eventually, startTestNats, type TestNats } from "@warden/testing";

function tool(name: string): ToolDescriptorInput {
  return { name, version: "1.0.0", title: name, description: "Use when the caller needs this information.", inputSchema: { type: "object" }, grade: "read", idempotent: true };
}

/** A service's log, kept to see which stored revisions it refused. */
function recordingLog(): { log: Logger; refused(revision: number): boolean } {
  const lines: { msg?: string; revision?: number }[] = [];
  const log = pino({ level: "info" }, { write: (line: string) => lines.push(JSON.parse(line) as { msg?: string; revision?: number }) });
  return { log, refused: (revision) => lines.some((l) => l.msg === "invalid policy document ignored" && l.revision === revision) };
}

describe("the tool view and the policy decisions follow the same policy document", () => {
  let nats: TestNats;
  let admin: Bus;
  let registry: RegistryService;
  let policy: PolicyService;
  const registryLog = recordingLog();
  const policyLog = recordingLog();
  let agent: AgentClient;
  let views: RegistryClient;

  beforeAll(async () => {
    nats = await startTestNats();
    admin = await nats.bus();
    // each service as its own identity, with exactly the rights docs/security.md gives it
    registry = await startRegistryService({ bus: await nats.connectAs({ kind: "service", name: "registry", role: "registry" }), log: registryLog.log });
    policy = await startPolicyService({ bus: await nats.connectAs({ kind: "service", name: "policy", role: "policy" }), log: policyLog.log });
    const agentBus = await nats.connectAs({ kind: "agent", name: "agree-bot" });
    agent = createAgentClient({ bus: agentBus, principal: "agree-bot", timeoutMs: 1_000 });
    views = createRegistryClient(agentBus);
    expect(await createRegistryClient(admin).register([tool("agree.search"), tool("agree.lookup")])).toMatchObject({ ok: true });
  });
  afterAll(async () => {
    await agent?.close();
    await registry?.stop();
    await policy?.stop();
    await nats?.stop();
  });

  /** What the agent is shown: the policy version and whether agree.lookup is listed. */
  async function shown(): Promise<{ policyVersion: string; lookup: boolean }> {
    const r = await views.view({ principal: "agree-bot", mode: "llm" });
    if (!r.ok) throw new Error(r.error.message);
    return { policyVersion: r.value.view.policyVersion, lookup: r.value.view.tools.some((t) => t.name === "agree.lookup") };
  }

  /** What the policy stage decides for a call of `tool` by the agent, and under which document. */
  async function decided(name: string): Promise<{ decision: string; policyVersion: string }> {
    const r = await agent.call(name, {});
    const checked = await eventually(async () => {
      const e = await readEvent(admin, "agree", r.callId, "ToolPolicyChecked");
      if (e === undefined) throw new Error(`no policy decision for ${r.callId} yet`);
      return e;
    });
    return { decision: checked.data.decision, policyVersion: checked.data.policyVersion };
  }

  it("keeps the last valid document in both when an invalid one is stored behind the policy service's back, and falls back to the defaults in both when it is deleted", async () => {
    const kv = await admin.kvm.open(BUCKET_POLICY);
    const doc = PolicyDocumentSchema.parse({ version: "agree-1", rules: [{ id: "no-lookup", match: { tool: "agree.lookup" }, effect: "deny", reason: "not here" }] });
    await kvPutJson(kv, POLICY_DOCUMENT_KEY, doc);
    await eventually(async () => expect(await shown()).toEqual({ policyVersion: "agree-1", lookup: false }));
    await eventually(() => expect(policy.document().version).toBe("agree-1"));
    expect(await decided("agree.lookup")).toEqual({ decision: "deny", policyVersion: "agree-1" });

    const broken = await kvPutJson(kv, POLICY_DOCUMENT_KEY, { version: "broken", rules: "not a list" });
    await eventually(() => expect(registryLog.refused(broken) && policyLog.refused(broken)).toBe(true));
    expect(await shown()).toEqual({ policyVersion: "agree-1", lookup: false });
    expect(await decided("agree.lookup")).toEqual({ decision: "deny", policyVersion: "agree-1" });
    expect(await decided("agree.search")).toEqual({ decision: "allow", policyVersion: "agree-1" });

    await kv.delete(POLICY_DOCUMENT_KEY);
    await eventually(async () => expect(await shown()).toEqual({ policyVersion: "builtin-0", lookup: true }));
    await eventually(() => expect(policy.document().version).toBe("builtin-0"));
    expect(await decided("agree.lookup")).toEqual({ decision: "allow", policyVersion: "builtin-0" });
  });
});
