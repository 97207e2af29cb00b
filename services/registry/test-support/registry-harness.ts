import { randomBytes } from "node:crypto";
import { silentLogger, type Bus } from "@warden/bus";
import { startTestNats, type TestNats } from "@warden/testing";
import { startRegistryService, type RegistryService } from "../src/service.js";

/**
 * A real nats-server with the topology and one registry service running in-process, connected as
 * the registry's own identity (the rights docs/security.md gives it). `bus` is an admin
 * connection for setting things up; tests acting as a caller use `nats.connectAs`.
 */
export interface RegistryHarness {
  readonly nats: TestNats;
  readonly bus: Bus;
  readonly service: RegistryService;
  stop(): Promise<void>;
}

export async function startRegistryHarness(): Promise<RegistryHarness> {
  const nats = await startTestNats();
  const bus = await nats.bus("registry-test");
  const registryBus = await nats.connectAs({ kind: "service", name: "registry", role: "registry" });
  const service = await startRegistryService({ bus: registryBus, log: silentLogger() });
  return {
    nats,
    bus,
    service,
    async stop() {
      await service.stop();
      await nats.stop();
    },
  };
}

/** A domain no other test uses, so tests sharing one server stay apart. */
export function uniqueDomain(prefix = "t"): string {
  return `${prefix}${randomBytes(5).toString("hex")}`;
}
