import { createLogger, silentLogger, type Bus } from "@warden/bus";
import { startApproverService } from "@warden/approver";
import { startSupportDesk, supportDeskPolicy } from "@warden/example-support-desk";
import { putPolicyDocument, startPolicyService } from "@warden/policy";
import { startProjector } from "@warden/projector";
import { startRegistryService } from "@warden/registry";
import type { PolicyDocumentInput } from "@warden/contracts";
import { startTestNats, type TestNats } from "./nats.js";

interface Stoppable {
  stop(): Promise<void>;
}

export interface TestWarden {
  readonly nats: TestNats;
  readonly bus: Bus;
  /** Starts another copy of something (a second executor, a restarted service) and stops it with the rest. */
  track<T extends Stoppable>(s: T): T;
  stopServices(): Promise<void>;
  startServices(): Promise<void>;
  stop(): Promise<void>;
}

export interface TestWardenOptions {
  readonly demo?: boolean;
  readonly policy?: PolicyDocumentInput;
  readonly sweepIntervalMs?: number;
}

/** Every core service in-process over one real nats-server, plus the demo domain if asked. */
export async function startTestWarden(opts: TestWardenOptions = {}): Promise<TestWarden> {
  const nats = await startTestNats();
  const bus = await nats.bus("warden-test");
  // WARDEN_TEST_LOG=debug shows the services' logs when a test needs explaining
  const level = process.env["WARDEN_TEST_LOG"];
  const log = level ? createLogger("test-warden", level) : silentLogger();
  const policy = opts.policy ?? (opts.demo ? supportDeskPolicy : undefined);
  if (policy) {
    const put = await putPolicyDocument(bus, policy);
    if (!put.ok) throw new Error(`test policy refused: ${put.error.message}`);
  }
  let services: Stoppable[] = [];
  const extra: Stoppable[] = [];
  const startServices = async () => {
    const registry = await startRegistryService({ bus, log });
    const policyService = await startPolicyService({ bus, log });
    const approver = await startApproverService({ bus, log, sweepIntervalMs: opts.sweepIntervalMs ?? 200 });
    const projector = await startProjector({ bus, log, leaseTtlMs: 1_000 });
    services = [registry, policyService, approver, projector];
    if (opts.demo) services.push(await startSupportDesk({ bus, log }));
  };
  await startServices();
  return {
    nats,
    bus,
    track(s) {
      extra.push(s);
      return s;
    },
    startServices,
    async stopServices() {
      await Promise.all(services.map((s) => s.stop()));
      services = [];
    },
    async stop() {
      await Promise.allSettled([...extra, ...services].map((s) => s.stop()));
      await nats.stop();
    },
  };
}
