import { afterAll, describe, expect, it } from "vitest";
import { silentLogger } from "@warden/bus";
import { registryRegisterSubject } from "@warden/contracts/subjects";
import { type ToolDescriptorInput } from "@warden/contracts/descriptor";
import { startRegistryService, type RegistryService } from "@warden/registry";
import { eventually, useTestNats } from "@warden/testing";
import { createRegistryClient } from "@warden/sdk";

function tool(name: string, description = "Use when the caller needs this information."): ToolDescriptorInput {
  return { name, version: "1.0.0", title: name, description, inputSchema: { type: "object" }, grade: "read", idempotent: true };
}

describe("the registry client's retry rule", () => {
  // `bus` (admin) only sets up and counts the requests on the wire; the executor of domain `late`
  // is the connection a domain team's process holds
  const t = useTestNats(async (nats) => ({ executor: await nats.connectAs({ kind: "executor", name: "late-executor", domains: ["late"] }) }));
  const started: RegistryService[] = [];
  afterAll(async () => {
    for (const s of started) await s.stop();
  });

  /** Counts the requests sent on a subject (a plain subscription sees them beside the registry's queue group). */
  function countRequests(subject: string): { count(): number; stop(): void } {
    let n = 0;
    const sub = t.bus.nc.subscribe(subject, { callback: () => void n++ });
    return { count: () => n, stop: () => sub.unsubscribe() };
  }

  it("waits for a registry that starts after the request, within its patience", async () => {
    const requests = countRequests(registryRegisterSubject("late"));
    await t.bus.nc.flush();
    const registry = createRegistryClient(t.executor, { patienceMs: 20_000, requestTimeoutMs: 500 });
    const pending = registry.register([tool("late.search")]);
    // no registry answers yet: the first attempts end UNAVAILABLE (retryable) and are asked again
    await eventually(() => expect(requests.count()).toBeGreaterThanOrEqual(2));
    const registryBus = await t.nats.connectAs({ kind: "service", name: "registry", role: "registry" });
    started.push(await startRegistryService({ bus: registryBus, log: silentLogger() }));
    const r = await pending;
    requests.stop();
    expect(r).toMatchObject({ ok: true, value: { registered: [{ name: "late.search", created: true }] } });
    expect(requests.count()).toBeGreaterThanOrEqual(3);
  });

  it("returns a refusal at once, without asking again", async () => {
    const requests = countRequests(registryRegisterSubject("late"));
    await t.bus.nc.flush();
    const registry = createRegistryClient(t.executor, { patienceMs: 20_000 });
    const startedAt = Date.now();
    // an empty description is an invalid descriptor: a refusal, not a registry that is not ready
    const r = await registry.register([tool("late.broken", "")]);
    expect(r).toMatchObject({ ok: false, error: { code: "DESCRIPTOR_INVALID", retryable: false } });
    expect(Date.now() - startedAt).toBeLessThan(5_000);
    await t.bus.nc.flush();
    requests.stop();
    expect(requests.count()).toBe(1);
  });

  it("returns a request the server refuses this identity (another domain) at once, as FORBIDDEN", async () => {
    const registry = createRegistryClient(t.executor, { patienceMs: 20_000 });
    const startedAt = Date.now();
    expect(await registry.register([tool("other.search")])).toMatchObject({ ok: false, error: { code: "FORBIDDEN" } });
    expect(Date.now() - startedAt).toBeLessThan(5_000);
  });

  it("refuses a batch that spans domains before sending it", async () => {
    const r = await createRegistryClient(t.executor).register([tool("late.a"), tool("other.b")]);
    expect(r).toMatchObject({ ok: false, error: { code: "INVALID_REQUEST" } });
  });
});
