import { randomBytes } from "node:crypto";
import { Writable } from "node:stream";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { wardenError } from "@warden/contracts/errors";
import { append, callEvents, policyChecked, waitForEvent } from "@warden/testing";
import { useRunningExecutor } from "../test-support/executor-harness.js";
import { readArtifact } from "./artifacts.js";
import { defineTool } from "./define-tool.js";
import { SecretStore } from "./secret-store.js";
import { ToolError } from "./tool-error.js";

const SECRET = `vault-${randomBytes(12).toString("hex")}`;
const encoded = (s: string) => ({ raw: s, hex: Buffer.from(s).toString("hex"), base64: Buffer.from(`x${s}`).toString("base64") });
const common = { version: "1.0.0", grade: "read" as const, title: "Vault", input: z.strictObject({}) };

const leak = defineTool({
  ...common,
  name: "vault.leak",
  description: "Use to see what a tool that echoes its credentials returns.",
  handler: async (_args, ctx) => ({ ...encoded(await ctx.secrets.get("api_key")), pad: "x".repeat(10_000) }),
});
const blame = defineTool({
  ...common,
  name: "vault.blame",
  description: "Use to see what a tool that fails quoting its credentials records.",
  handler: async (_args, ctx) => {
    const key = await ctx.secrets.get("api_key");
    throw new ToolError(wardenError("UNAVAILABLE", `upstream refused ${key}`, { sent: Buffer.from(key).toString("base64") }));
  },
});
const unset = defineTool({
  ...common,
  name: "vault.unset",
  description: "Use to see how a secret that is not configured fails the call.",
  handler: async (_args, ctx) => ctx.secrets.get("not_set"),
});

describe("executor: ctx.secrets for TypeScript tools", () => {
  const lines: string[] = [];
  const t = useRunningExecutor(async (nats) => {
    const sink = new Writable({ write: (chunk: Buffer, _enc, done) => void (lines.push(chunk.toString("utf8")), done()) });
    return {
      bus: await nats.connectAs({ kind: "executor", name: "vault-1", domains: ["vault"] }),
      log: pino({ level: "debug" }, sink),
      domain: "vault",
      tools: [leak, blame, unset],
      secrets: new SecretStore([{ name: "api_key", env: "VAULT_API_KEY" }, { name: "not_set", env: "VAULT_NOT_SET" }], { env: { VAULT_API_KEY: SECRET } }),
    };
  });

  it("gives a handler the secret at run time and records its output, preview and artifact without it", async () => {
    const pc = policyChecked(leak, {});
    await append(t.bus, pc);
    const finished = await waitForEvent(t.bus, "vault", pc.callId, "ToolCallFinished");
    expect(finished.data).toMatchObject({ ok: true, truncated: true, output: { raw: "[REDACTED:api_key]", hex: "[REDACTED:api_key]" } });
    const artifact = Buffer.from((await readArtifact(t.bus, finished.data.artifacts[0]!.id))!).toString("utf8");
    expect(artifact).toContain("[REDACTED:api_key]");
    const recorded = [JSON.stringify(await callEvents(t.bus, pc.callId)), artifact, lines.join("")];
    for (const text of recorded) for (const form of Object.values(encoded(SECRET))) expect(text).not.toContain(form.slice(4, -4));
  });

  it("redacts what a handler throws, message and details, before it is recorded or logged", async () => {
    const pc = policyChecked(blame, {});
    await append(t.bus, pc);
    const finished = await waitForEvent(t.bus, "vault", pc.callId, "ToolCallFinished");
    expect(finished.data).toMatchObject({ ok: false, error: { code: "UNAVAILABLE", message: "upstream refused [REDACTED:api_key]", details: { sent: "[REDACTED:api_key]" } } });
    expect(lines.join("")).toContain("upstream refused [REDACTED:api_key]");
    expect(lines.join("")).not.toContain(SECRET);
  });

  it("fails the call naming a secret that is not configured", async () => {
    const pc = policyChecked(unset, {});
    await append(t.bus, pc);
    const finished = await waitForEvent(t.bus, "vault", pc.callId, "ToolCallFinished");
    expect(finished.data).toMatchObject({ ok: false, error: { code: "HANDLER_ERROR", message: "secret not_set is unavailable: environment variable VAULT_NOT_SET is not set" } });
  });
});
