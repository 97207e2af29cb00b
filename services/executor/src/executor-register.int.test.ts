import { describe, expect, it } from "vitest";
import { z } from "zod";
import { silentLogger } from "@warden/bus";
import { wardenError } from "@warden/contracts/errors";
import { serveFakeRegistry, useTestNats } from "@warden/testing";
import { defineTool } from "./define-tool.js";
import { ExecutorStartError, startExecutor } from "./start-executor.js";

/** The same answering tool in `domain`. */
const pingIn = (domain: string) =>
  defineTool({
    name: `${domain}.ping`,
    version: "1.0.0",
    title: "Ping",
    description: "Use when you want to know the service answers.",
    grade: "read",
    input: z.strictObject({}),
    handler: () => "pong",
  });
const ping = pingIn("reg");
const stranger = pingIn("other");

describe("executor start and registration", () => {
  const t = useTestNats();
  const log = silentLogger();

  it("gives up with UNAVAILABLE when no registry answers within registerTimeoutMs", async () => {
    const start = startExecutor({ bus: t.bus, log, domain: "reg", tools: [ping], registerTimeoutMs: 400 });
    await expect(start).rejects.toBeInstanceOf(ExecutorStartError);
    await expect(start).rejects.toMatchObject({ code: "UNAVAILABLE" });
  });

  it("retries while the registry is unavailable, then starts", async () => {
    const registry = await serveFakeRegistry(t.bus, (attempt) =>
      attempt < 3 ? { ok: false, error: wardenError("UNAVAILABLE", "starting up") } : undefined,
    );
    try {
      const executor = await startExecutor({ bus: t.bus, log, domain: "reg", tools: [ping] });
      expect(registry.attempts()).toBe(3);
      expect(executor.registered).toEqual([{ name: "reg.ping", version: "1.0.0", descriptorHash: ping.descriptorHash, status: "enabled", created: true }]);
      await executor.stop();
    } finally {
      await registry.stop();
    }
  });

  it("refuses to start on REGISTRATION_CONFLICT or DESCRIPTOR_INVALID, without retrying", async () => {
    for (const code of ["REGISTRATION_CONFLICT", "DESCRIPTOR_INVALID"] as const) {
      const registry = await serveFakeRegistry(t.bus, () => ({ ok: false, error: wardenError(code, "no") }));
      try {
        await expect(startExecutor({ bus: t.bus, log, domain: "reg", tools: [ping] })).rejects.toMatchObject({ code });
        expect(registry.attempts()).toBe(1);
      } finally {
        await registry.stop();
      }
    }
  });

  it("refuses to start when the registry holds the version with another descriptor hash", async () => {
    const other = { name: "reg.ping", version: "1.0.0", descriptorHash: `sha256:${"9".repeat(64)}`, status: "enabled", created: false };
    const registry = await serveFakeRegistry(t.bus, () => ({ ok: true, value: { registered: [other] } }));
    try {
      await expect(startExecutor({ bus: t.bus, log, domain: "reg", tools: [ping] })).rejects.toMatchObject({ code: "REGISTRATION_CONFLICT" });
    } finally {
      await registry.stop();
    }
  });

  it("throws for a tool outside its domain, before talking to anyone", async () => {
    await expect(startExecutor({ bus: t.bus, log, domain: "reg", tools: [ping, stranger], registerTimeoutMs: 100 })).rejects.toThrow(/not in domain reg/);
  });
});
