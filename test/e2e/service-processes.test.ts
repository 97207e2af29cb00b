import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "@warden/bus";
import { type IdentitySpecInput } from "@warden/contracts/permissions";
import { type Grade } from "@warden/contracts/descriptor";
import { AGENT_DOMAIN, subagentPrincipal } from "@warden/contracts/policy";
import { startRegistryService, type RegistryService } from "@warden/registry";
import { createAgentClient, createRegistryClient } from "@warden/sdk";
import { generateSigningKeyPair } from "@warden/service-kit";
import { triageAgent } from "@warden/subagent";
import { eventually, startTestNats, type TestNats } from "@warden/testing";
import { runServiceMain, startRegistryWithKbSearch } from "../support/service-process.js";

/** Every service process with the identity it runs as in production. */
const SERVICES: readonly { readonly name: string; readonly identity: IdentitySpecInput; readonly env?: (dir: string) => NodeJS.ProcessEnv }[] = [
  { name: "registry", identity: { kind: "service", name: "registry", role: "registry" } },
  { name: "policy", identity: { kind: "service", name: "policy", role: "policy" } },
  { name: "approver", identity: { kind: "service", name: "approver", role: "approver" } },
  { name: "projector", identity: { kind: "service", name: "projector", role: "projector" } },
  { name: "notary", identity: { kind: "service", name: "notary", role: "notary" }, env: (dir) => ({ WARDEN_NOTARY_SIGNING_KEY_FILE: join(dir, "notary.pem") }) },
  { name: "subagent", identity: { kind: "subagent", name: "subagent", domains: [AGENT_DOMAIN], principals: [subagentPrincipal(triageAgent.name)] } },
];

const runMain = runServiceMain;

describe("a service process serves health and metrics with WARDEN_HEALTH_PORT", () => {
  let nats: TestNats;
  let registry: RegistryService;
  beforeAll(async () => {
    nats = await startTestNats();
    registry = await startRegistryWithKbSearch(nats);
  });
  afterAll(async () => {
    await registry.stop();
    await nats.stop();
  });

  it("policy: ready once started, and its counters move after a call", async () => {
    const env = { NATS_URL: nats.url, NATS_CREDS: await nats.credsOf({ kind: "service", name: "policy", role: "policy" }), LOG_LEVEL: "info", WARDEN_HEALTH_PORT: "0" };
    let port = 0;
    let signalled = false;
    const seen: { ready?: number; metrics?: string } = {};
    const exit = await runMain("policy", env, (out, stop) => {
      const m = /"healthPort":(\d+)[^\n]*"msg":"service started"/.exec(out);
      if (m === null || signalled) return;
      signalled = true;
      port = Number(m[1]);
      void (async () => {
        const url = (path: string) => `http://127.0.0.1:${port}${path}`;
        seen.ready = (await fetch(url("/readyz"))).status;
        const agent = createAgentClient({ bus: await nats.connectAs({ kind: "agent", name: "bot" }), principal: "bot", timeoutMs: 5_000 });
        await agent.call("kb.search", { q: "x" }, { mode: "llm" });
        await eventually(async () => {
          const text = await (await fetch(url("/metrics"))).text();
          expect(text).toMatch(/warden_stage_messages_total\{stage="policy-check",event_type="ToolArgsValidated",tool="kb.search",outcome="ack",service="policy"\} 1/);
          seen.metrics = text;
        });
        await agent.close();
        stop();
      })();
    });
    expect({ code: exit.code, stderr: exit.stderr }).toEqual({ code: 0, stderr: "" });
    expect(port).toBeGreaterThan(0);
    expect(seen.ready).toBe(200);
    // the decision it wrote: refused UNAVAILABLE (no executor of kb runs here), counted by type, tool and result
    expect(seen.metrics).toMatch(/warden_events_written_total\{type="(ToolPolicyChecked|ToolCallRejected)",tool="kb.search",result="[A-Za-z_]+",service="policy"\} 1/);
    expect(seen.metrics).toMatch(/warden_consumer_pending_messages\{durable="policy-check",service="policy"\} \d+/);
  });
});

describe("every service runs as a process the same way", () => {
  let nats: TestNats;
  let registry: RegistryService;
  let keyDir: string;
  beforeAll(async () => {
    keyDir = mkdtempSync(join(tmpdir(), "warden-keys-"));
    writeFileSync(join(keyDir, "notary.pem"), generateSigningKeyPair().privateKeyPem, { mode: 0o600 });
    nats = await startTestNats();
    const admin = await nats.bus("setup");
    // the subagent starts only once the tools its agents may use are registered
    registry = await startRegistryService({ bus: await nats.connectAs({ kind: "service", name: "registry-0", role: "registry" }), log: silentLogger() });
    const grades: Record<string, Grade> = { "kb.search": "read", "session.fetch": "read", "ticket.fill": "write", "ticket.submit": "write" };
    for (const [name, grade] of Object.entries(grades)) {
      const descriptor = { name, version: "1.0.0", title: name, description: "Use when the support desk needs it.", inputSchema: { type: "object" }, grade, idempotent: grade === "read" };
      expect((await createRegistryClient(admin).register([descriptor])).ok).toBe(true);
    }
  });
  afterAll(async () => {
    await registry.stop();
    await nats.stop();
    rmSync(keyDir, { recursive: true, force: true });
  });

  for (const s of SERVICES) {
    it(`${s.name}: connects as its identity, says it started, and exits 0 on SIGTERM`, async () => {
      const env = { NATS_URL: nats.url, NATS_CREDS: await nats.credsOf(s.identity), LOG_LEVEL: "info", ...s.env?.(keyDir) };
      let signalled = false;
      const exit = await runMain(s.name, env, (out, stop) => {
        if (!signalled && out.includes('"msg":"service started"')) {
          signalled = true;
          stop();
        }
      });
      expect({ code: exit.code, started: signalled, stderr: exit.stderr }).toEqual({ code: 0, started: true, stderr: "" });
      expect(exit.stdout).toContain(`"service":"${s.name}"`);
    });

    it(`${s.name}: a bad health port exits 1 naming the variable`, async () => {
      const exit = await runMain(s.name, { NATS_URL: nats.url, WARDEN_HEALTH_PORT: "http" });
      expect(exit.code).toBe(1);
      expect(exit.stderr).toMatch(new RegExp(`^warden-${s.name}: invalid environment variable WARDEN_HEALTH_PORT="http"`));
    });

    it(`${s.name}: a bad setting exits 1 naming the variable, without a stack trace`, async () => {
      const exit = await runMain(s.name, { NATS_URL: nats.url, LOG_LEVEL: "loud" });
      expect(exit.code).toBe(1);
      expect(exit.stderr).toMatch(new RegExp(`^warden-${s.name}: invalid environment variable LOG_LEVEL="loud"`));
      expect(exit.stderr).not.toMatch(/\n\s+at /);
    });
  }
});
