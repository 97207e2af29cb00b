import { createHash, randomBytes } from "node:crypto";
import { writeFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { append, callEvents, policyChecked, waitForEvent } from "@warden/testing";
import { useRunningExecutor } from "../test-support/executor-harness.js";
import { defineTool } from "./define-tool.js";
import { SecretStore } from "./secret-store.js";
import { startExecutor } from "./start-executor.js";

const ALICE = `alice-${randomBytes(12).toString("hex")}`;
const BOB = `bob-${randomBytes(12).toString("hex")}`;
const SERVICE = `svc-${randomBytes(12).toString("hex")}`;
const sha = (s: string) => createHash("sha256").update(s).digest("hex");

const common = { version: "1.0.0", grade: "read" as const, title: "CRM", input: z.strictObject({}) };
/** Echoes the credential it got (to be redacted) and its hash (to tell whose it was). */
const whoami = defineTool({
  ...common,
  name: "crm.whoami",
  description: "Use to see which CRM credential a call gets.",
  secrets: ["crm_token", "crm_service"],
  actsAs: "caller",
  handler: async (_args, ctx) => {
    const token = await ctx.secrets.get("crm_token");
    const service = await ctx.secrets.get("crm_service");
    return { token, tokenSha: sha(token), serviceSha: sha(service), principal: ctx.principal, onBehalfOf: ctx.onBehalfOf };
  },
});

describe("executor: secrets bound to the calling principal", () => {
  let store: SecretStore;
  const t = useRunningExecutor(async (nats) => {
    const dir = mkdtempSync(join(tmpdir(), "warden-principal-secrets-"));
    const secretsFile = join(dir, "secrets.yaml");
    writeFileSync(secretsFile, `crm_token:\n  alice: ${ALICE}\n  bob: ${BOB}\ncrm_service: ${SERVICE}\n`);
    store = new SecretStore([{ name: "crm_token", file: "crm_token", bind: "principal" }, { name: "crm_service", file: "crm_service" }], { env: {}, secretsFile });
    return {
      bus: await nats.connectAs({ kind: "executor", name: "crm-1", domains: ["crm"] }),
      log: pino({ level: "silent" }),
      domain: "crm",
      tools: [whoami],
      secrets: store,
    };
  });

  async function run(o: { principal: string; onBehalfOf?: string }) {
    const pc = policyChecked(whoami, {}, { principal: o.principal, mode: "plan" });
    await append(t.bus, o.onBehalfOf === undefined ? pc : { ...pc, data: { ...pc.data, onBehalfOf: o.onBehalfOf } });
    return waitForEvent(t.bus, "crm", pc.callId, "ToolCallFinished");
  }

  it("gives alice's call alice's credential and bob's call bob's, redacted from what is recorded, and records whose by name", async () => {
    const alice = await run({ principal: "alice" });
    expect(alice.data).toMatchObject({ ok: true, output: { token: "[REDACTED:crm_token]", tokenSha: sha(ALICE), serviceSha: sha(SERVICE), onBehalfOf: "alice" } });
    expect(alice.data.credentials).toEqual([
      { secret: "crm_service", bind: "executor" },
      { secret: "crm_token", bind: "principal", principal: "alice" },
    ]);
    const bob = await run({ principal: "bob" });
    expect(bob.data).toMatchObject({ ok: true, output: { token: "[REDACTED:crm_token]", tokenSha: sha(BOB) } });
    expect(bob.data.credentials).toContainEqual({ secret: "crm_token", bind: "principal", principal: "bob" });
    const recorded = JSON.stringify([...(await callEvents(t.bus, alice.callId)), ...(await callEvents(t.bus, bob.callId))]);
    // the scan must have something to look at, or it would pass vacuously
    expect(recorded).toContain("[REDACTED:crm_token]");
    for (const value of [ALICE, BOB, SERVICE]) expect(recorded.includes(value)).toBe(false);
  });

  it("fails a call of a principal with no credential CREDENTIAL_UNAVAILABLE, naming the secret and the principal, never falling back", async () => {
    const carol = await run({ principal: "carol" });
    expect(carol.data).toMatchObject({
      ok: false,
      error: { code: "CREDENTIAL_UNAVAILABLE", retryable: false, message: "carol has no credential for secret crm_token: it is bound to the principal the call runs for, and no other credential is used instead" },
    });
    expect(carol.data.credentials).toBeUndefined();
    // a principal named like an Object property finds nothing either
    const proto = await run({ principal: "constructor" });
    expect(proto.data).toMatchObject({ ok: false, error: { code: "CREDENTIAL_UNAVAILABLE" } });
  });

  it("uses the credential of the principal the policy says a delegated call runs for, not the subagent's", async () => {
    const child = await run({ principal: "agent-triage", onBehalfOf: "alice" });
    expect(child.data).toMatchObject({ ok: true, output: { tokenSha: sha(ALICE), principal: "agent-triage", onBehalfOf: "alice" } });
    expect(child.data.credentials).toContainEqual({ secret: "crm_token", bind: "principal", principal: "alice" });
  });

  it("refuses to start a tool that uses a principal-bound secret without saying it acts as the caller", async () => {
    const silent = defineTool({ ...common, name: "crm.silent", description: "Use to see a tool that hides whose credential it uses.", secrets: ["crm_token"], handler: () => ({}) });
    await expect(startExecutor({ bus: t.bus, log: pino({ level: "silent" }), domain: "crm", tools: [silent], secrets: store })).rejects.toThrow(
      'tool crm.silent uses secret crm_token, which is bound to the principal: declare actsAs: "caller" in its descriptor',
    );
  });

  it("refuses a principal-bound secret read from an environment variable", () => {
    expect(() => new SecretStore([{ name: "t", env: "T", bind: "principal" }], { env: {} })).toThrow(/bound to the principal comes from a key of the secrets file/);
  });
});
