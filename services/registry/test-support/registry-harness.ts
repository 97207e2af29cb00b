import { randomBytes } from "node:crypto";
import { expect } from "vitest";
import { createRegistryClient } from "@warden/sdk";
import { appendEvent, readEvent, silentLogger, type Bus } from "@warden/bus";
import { newId, type EventOfType, type EventType, type WardenEvent } from "@warden/contracts/events";
import { eventually, startTestNats, syntheticCall, useStarted, type SyntheticCallOptions, type TestNats } from "@warden/testing";
import { startRegistryService, type RegistryService } from "../src/service.js";
import { descriptor, SIDE_EFFECTS } from "./fixtures.js";

/**
 * A real nats-server with the topology and one registry service running in-process, connected as
 * the registry's own identity (the rights docs/security.md gives it). `bus` is an admin
 * connection for setting things up; tests acting as a caller use `nats.connectAs`.
 */
export interface RegistryHarness {
  readonly nats: TestNats;
  readonly bus: Bus;
  readonly service: RegistryService;
}

/**
 * {@link RegistryHarness} for the `describe` block this is called in: started before its tests
 * (and before the block's own `beforeAll` hooks), stopped after them. Read its fields inside tests
 * and hooks, not while the block is declared.
 */
export function useRegistryHarness(): RegistryHarness {
  return useStarted(
    "useRegistryHarness",
    async () => {
      const nats = await startTestNats();
      const bus = await nats.bus("registry-test");
      const registryBus = await nats.connectAs({ kind: "service", name: "registry", role: "registry" });
      return { nats, bus, service: await startRegistryService({ bus: registryBus, log: silentLogger() }) };
    },
    async ({ nats, service }) => {
      await service.stop();
      await nats.stop();
    },
  );
}

/** A domain no other test uses, so tests sharing one server stay apart. */
export function uniqueDomain(prefix = "t"): string {
  return `${prefix}${randomBytes(5).toString("hex")}`;
}

/** Registers `<domain>.search`, a read, and `<domain>.message`, a send, as an admin does. */
export async function registerSearchAndMessage(h: RegistryHarness, domain: string): Promise<void> {
  const r = await createRegistryClient(h.bus).register([descriptor({ name: `${domain}.search` }), descriptor({ name: `${domain}.message`, grade: "send", description: SIDE_EFFECTS, idempotent: false })]);
  if (!r.ok) throw new Error(r.error.message);
}

export interface RequestedCall {
  readonly callId: string;
  /** Every event of the call, as its stages would write them; only its request is on the stream. */
  readonly events: readonly WardenEvent[];
  of<T extends EventType>(type: T): EventOfType<T>;
}

/**
 * A call of `o.tool` that `o.principal` requests itself over `caller` (the registry then validates
 * it), once the registry has seen it; the test appends the later events when it chooses.
 */
export async function requestedCall(h: RegistryHarness, caller: Bus, o: Omit<SyntheticCallOptions, "callId" | "at"> & { tool: string; principal: string }): Promise<RequestedCall> {
  const callId = newId();
  const events = syntheticCall({ ...o, callId, at: new Date() });
  const of = <T extends EventType>(type: T) => events.find((e) => e.type === type) as EventOfType<T>;
  expect((await appendEvent(caller, of("ToolCallRequested"), async () => undefined)).status).toBe("written");
  // the registry has seen it: a read that follows finds what the stages write next
  await eventually(async () => expect(await readEvent(h.bus, o.tool.split(".")[0]!, callId, "ToolArgsValidated")).toBeDefined());
  return { callId, events, of };
}
