import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger, type Bus } from "@warden/bus";
import { registryRegisterSubject } from "@warden/contracts/subjects";
import { type ToolDescriptorInput } from "@warden/contracts/descriptor";
import { startRegistryService, type RegistryService } from "@warden/registry";
import { eventually, startTestNats, type TestNats } from "@warden/testing";
import { createRegistryClient } from "@warden/sdk";

function tool(name: string, description = "Use when the caller needs this information."): ToolDescriptorInput {
  return { name, version: "1.0.0", title: name, description, inputSchema: { type: "object" }, grade: "read", idempotent: true };
}

describe("the registry client's retry rule", () => {
  let nats: TestNats;
  /** The admin connection: only sets up and counts the requests on the wire. */
  let admin: Bus;
  /** An executor of domain `late`, as a domain team's process holds it. */
  let executor: Bus;
  const started: RegistryService[] = [];

  beforeAll(async () => {
    nats = await startTestNats();
    admin = await nats.bus();
    executor = await nats.connectAs({ kind: "executor", name: "late-executor", domains: ["late"] });
  });
  afterAll(async () => {
    for (const s of started) await s.stop();
    await nats?.stop();
  });

  /** Counts the requests sent on a subject (a plain subscription sees them beside the registry's queue group). */
  function countRequests(subject: string): { count(): number; stop(): void } {
    let n = 0;
    const sub = admin.nc.subscribe(subject, { callback: () => void n++ });
    return { count: () => n, stop: () => sub.unsubscribe() };
  }

  it("waits for a registry that starts after the request, within its patience", async () => {
    const requests = countRequests(registryRegisterSubject("late"));
    await admin.nc.flush();
    const registry = createRegistryClient(executor, { patienceMs: 20_000, requestTimeoutMs: 500 });
    const pending = registry.register([tool("late.search")]);
    // no registry answers yet: the first attempts end UNAVAILABLE (retryable) and are asked again
    await eventually(() => expect(requests.count()).toBeGreaterThanOrEqual(2));
    const registryBus = await nats.connectAs({ kind: "service", name: "registry", role: "registry" });
    started.push(await startRegistryService({ bus: registryBus, log: silentLogger() }));
    const r = await pending;
    requests.stop();
    expect(r).toMatchObject({ ok: true, value: { registered: [{ name: "late.search", created: true }] } });
    expect(requests.count()).toBeGreaterThanOrEqual(3);
  });

  it("returns a refusal at once, without asking again", async () => {
    const requests = countRequests(registryRegisterSubject("late"));
    await admin.nc.flush();
    const registry = createRegistryClient(executor, { patienceMs: 20_000 });
    const startedAt = Date.now();
    // an empty description is an invalid descriptor: a refusal, not a registry that is not ready
    const r = await registry.register([tool("late.broken", "")]);
    expect(r).toMatchObject({ ok: false, error: { code: "DESCRIPTOR_INVALID", retryable: false } });
    expect(Date.now() - startedAt).toBeLessThan(5_000);
    await admin.nc.flush();
    requests.stop();
    expect(requests.count()).toBe(1);
  });

  it("returns a request the server refuses this identity (another domain) at once, as FORBIDDEN", async () => {
    const registry = createRegistryClient(executor, { patienceMs: 20_000 });
    const startedAt = Date.now();
    expect(await registry.register([tool("other.search")])).toMatchObject({ ok: false, error: { code: "FORBIDDEN" } });
    expect(Date.now() - startedAt).toBeLessThan(5_000);
  });

  it("refuses a batch that spans domains before sending it", async () => {
    const r = await createRegistryClient(executor).register([tool("late.a"), tool("other.b")]);
    expect(r).toMatchObject({ ok: false, error: { code: "INVALID_REQUEST" } });
  });
});
