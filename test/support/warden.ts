import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger, silentLogger, type Bus } from "@warden/bus";
import { startExecutor, type ExecutableTool, type Executor, type ExecutorOptions } from "@warden/executor";
import { createAgentClient, createApproverClient, type AgentClient, type AgentClientOptions, type ApproverClient, type ApproverClientOptions } from "@warden/sdk";
import { generateApproverKeyPair, startApproverService } from "@warden/approver";
import { BUCKET_DEMO_OUTBOX, BUCKET_DEMO_TICKETS, startSupportDesk, SUPPORT_DESK_DOMAINS, supportDeskPolicy } from "@warden/example-support-desk";
import { startNotaryService } from "@warden/notary";
import { putPolicyDocument, startPolicyService } from "@warden/policy";
import { startProjectorService } from "@warden/projector";
import { startRegistryService } from "@warden/registry";
import type { PolicyDocumentInput } from "@warden/contracts/policy";
import { startTestNats, type TestNats } from "@warden/testing";

interface Stoppable {
  stop(): Promise<void>;
}

export interface TestWarden {
  readonly nats: TestNats;
  /** The approver public keys executors pin (pass them to any executor a test starts). */
  readonly approverKeys: readonly string[];
  /** The notary public keys an auditor pins (`audit --verify --keys`). */
  readonly notaryKeys: readonly string[];
  /** The notary's private key: what an attacker who took notary.pem holds. */
  readonly notarySigningKeyPem: string;
  /** The notary's head log (every checkpoint it wrote), outside the bus: what `audit --verify --head` takes. */
  readonly notaryHeadLog: string;
  /** An admin connection: for setting things up and looking at the stream, never to act as a caller. */
  readonly bus: Bus;
  /** A connection as an agent principal (clients account): what an agent's process holds. */
  agentBus(principal: string): Promise<Bus>;
  /** A connection as a person (clients account): calls tools and decides approvals as themself. */
  humanBus(name: string): Promise<Bus>;
  /** A client of the agent `principal`, connected as it. */
  agent(principal: string, options?: Omit<AgentClientOptions, "bus" | "principal">): Promise<AgentClient>;
  /** A client with which the person `name` calls tools themself, connected as them. */
  person(name: string, options?: Omit<AgentClientOptions, "bus" | "principal">): Promise<AgentClient>;
  /** An approver client of the person `name`, connected as them. */
  approver(name: string, options?: Omit<ApproverClientOptions, "bus" | "approver">): Promise<ApproverClient>;
  /**
   * Starts an executor of `domain` serving `tools`, connected as that domain's executor identity
   * (`<domain>-executor` unless `identity` names another) and pinning the approver keys; it is stopped with the rest.
   */
  startExecutor(domain: string, tools: readonly ExecutableTool[], options?: TestExecutorOptions): Promise<Executor>;
  /** Starts another copy of something (a second executor, a restarted service) and stops it with the rest. */
  track<T extends Stoppable>(s: T): T;
  stopServices(): Promise<void>;
  startServices(): Promise<void>;
  stop(): Promise<void>;
}

export interface TestExecutorOptions extends Partial<Omit<ExecutorOptions, "bus" | "log" | "domain" | "tools">> {
  /** The executor identity's name. @default `<domain>-executor` */
  readonly identity?: string;
  /** The NATS connection's name, to tell copies of one identity apart. @default the identity's name */
  readonly connectionName?: string;
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
  // the approver signs with a key provisioned here; executors pin its public half, as `warden up` does
  const approverKey = generateApproverKeyPair();
  const approverKeys = [approverKey.publicKeyDerBase64];
  const notaryKey = generateApproverKeyPair();
  const notaryKeys = [notaryKey.publicKeyDerBase64];
  // the notary's own folder, apart from the home, as `warden up` keeps it
  const notaryDir = mkdtempSync(join(tmpdir(), "warden-test-notary-"));
  const notaryHeadLog = join(notaryDir, "heads.jsonl");
  // pinned in the home as `warden up` pins them, so the CLI run against it verifies with them
  nats.home.setApproverPublicKeys(approverKeys);
  nats.home.setNotaryPublicKeys(notaryKeys);
  // each service connects as its own identity, with exactly the rights docs/security.md gives it
  const serviceBus = (role: "registry" | "policy" | "approver" | "projector" | "notary") => nats.connectAs({ kind: "service", name: role, role });
  const startServices = async () => {
    const registry = await startRegistryService({ bus: await serviceBus("registry"), log, hideDownDomains: true });
    // as in production: a call that would run now, to a domain with no live executor, is refused UNAVAILABLE
    const policyService = await startPolicyService({ bus: await serviceBus("policy"), log, requireLiveExecutor: true });
    const approver = await startApproverService({
      bus: await serviceBus("approver"),
      log,
      sweepIntervalMs: opts.sweepIntervalMs ?? 200,
      signingKeyPem: approverKey.privateKeyPem,
    });
    const projector = await startProjectorService({ bus: await serviceBus("projector"), log, leaseTtlMs: 1_000 });
    // seals often, so a test can verify its calls' evidence soon after making them
    const notary = await startNotaryService({ bus: await serviceBus("notary"), log, signingKeyPem: notaryKey.privateKeyPem, intervalMs: 100, headLogFile: notaryHeadLog });
    services = [registry, policyService, approver, projector, notary];
    if (opts.demo) {
      const deskBus = await nats.connectAs({
        kind: "executor",
        name: "support-desk",
        domains: [...SUPPORT_DESK_DOMAINS],
        buckets: [BUCKET_DEMO_OUTBOX, BUCKET_DEMO_TICKETS],
      });
      services.push(await startSupportDesk({ bus: deskBus, log, approverKeys }));
    }
  };
  await startServices();
  const track = <T extends Stoppable>(s: T): T => {
    extra.push(s);
    return s;
  };
  return {
    nats,
    bus,
    approverKeys,
    notaryKeys,
    notarySigningKeyPem: notaryKey.privateKeyPem,
    notaryHeadLog,
    agentBus: (principal) => nats.connectAs({ kind: "agent", name: principal }),
    humanBus: (name) => nats.connectAs({ kind: "human", name }),
    agent: async (principal, options) => createAgentClient({ ...options, bus: await nats.connectAs({ kind: "agent", name: principal }), principal }),
    person: async (name, options) => createAgentClient({ ...options, bus: await nats.connectAs({ kind: "human", name }), principal: name }),
    approver: async (name, options) => createApproverClient({ ...options, bus: await nats.connectAs({ kind: "human", name }), approver: name }),
    async startExecutor(domain, tools, { identity = `${domain}-executor`, connectionName, ...options } = {}) {
      const executorBus = await nats.connectAs({ kind: "executor", name: identity, domains: [domain] }, connectionName);
      return track(await startExecutor({ approverKeys, ...options, bus: executorBus, log, domain, tools }));
    },
    track,
    startServices,
    async stopServices() {
      await Promise.all(services.map((s) => s.stop()));
      services = [];
    },
    async stop() {
      await Promise.allSettled([...extra, ...services].map((s) => s.stop()));
      await nats.stop();
      rmSync(notaryDir, { recursive: true, force: true });
    },
  };
}
