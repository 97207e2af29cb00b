import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { pino } from "pino";
import { stringify } from "yaml";
import { generateApproverKeyPair, startApproverService } from "@warden/approver";
import type { Bus, Logger } from "@warden/bus";
import { OBJECT_STORE_ARTIFACTS, STREAM_CALLS } from "@warden/contracts/subjects";
import { type ServiceRole } from "@warden/contracts/permissions";
import { type PolicyDocumentInput } from "@warden/contracts/policy";
import { putPolicyDocument, startPolicyService } from "@warden/policy";
import { startRegistryService } from "@warden/registry";
import { startTestNats, useStarted, type TestNats } from "@warden/testing";
import { readArtifact } from "@warden/executor";
import { loadManifestFile, type LoadedManifest } from "../src/manifest/load-manifests.js";
import { startAdaptersService, type AdaptersService } from "../src/service.js";

export const FIXTURES = join(import.meta.dirname, "fixtures");
export const NODE = process.execPath;
export const MCP_EVERYTHING = join(import.meta.dirname, "../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js");
export const MCP_FILESYSTEM = join(import.meta.dirname, "../../../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");

interface Stoppable {
  stop(): Promise<void>;
}

export interface AdaptersWarden {
  readonly nats: TestNats;
  /** An admin connection: for setting up (policy, enabling tools) and reading the stream, never to act as a caller. */
  readonly bus: Bus;
  /** The approver public keys the adapters pin (`approverKeys`), as provisioning hands them out. */
  readonly approverKeys: readonly string[];
  /** A connection as the adapters' executor identity for these manifest domains (`warden up` mints one per service). */
  executorBus(domains: readonly string[]): Promise<Bus>;
  /** The credentials file of that identity, for an adapters process (NATS_CREDS). */
  executorCreds(domains: readonly string[]): Promise<string>;
  /** A connection as an agent principal (clients account). */
  agentBus(principal: string): Promise<Bus>;
  /** A connection as a person (clients account): calls tools and decides approvals as themself. */
  humanBus(name: string): Promise<Bus>;
  /** Every service's logs and the adapters' go here (debug level), to be scanned for secrets. */
  readonly log: Logger;
  logs(): string;
  track<T extends Stoppable>(s: T): T;
  /**
   * Starts an adapters service running `manifests`, connected as their domains' executor identity
   * and pinning the approver's key, as `warden up` starts it; stopped with the rest.
   */
  startAdapters(manifests: readonly LoadedManifest[], o: { env: Readonly<Record<string, string | undefined>>; secretsFile?: string }): Promise<AdaptersService>;
  stop(): Promise<void>;
}

/** The executor identity an adapters service running `domains` connects as. */
export function adaptersIdentity(domains: readonly string[]) {
  return { kind: "executor" as const, name: `adapters-${[...domains].sort().join("-")}`, domains: [...domains] };
}

/** Registry, policy and approver in-process over a real nats-server, each as its own identity, all logging into one buffer. */
export async function startAdaptersWarden(policy: PolicyDocumentInput): Promise<AdaptersWarden> {
  const nats = await startTestNats();
  const bus = await nats.bus("adapters-test");
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString("utf8"));
      done();
    },
  });
  const log = pino({ level: "debug", base: { service: "adapters-test" } }, sink);
  const put = await putPolicyDocument(bus, policy);
  if (!put.ok) throw new Error(`test policy refused: ${put.error.message}`);
  // the approver signs with a key provisioned here; the adapters pin its public half, as `warden up` does
  const approverKey = generateApproverKeyPair();
  const serviceBus = (role: ServiceRole) => nats.connectAs({ kind: "service", name: role, role });
  const services: Stoppable[] = [
    await startRegistryService({ bus: await serviceBus("registry"), log }),
    await startPolicyService({ bus: await serviceBus("policy"), log }),
    await startApproverService({ bus: await serviceBus("approver"), log, sweepIntervalMs: 200, signingKeyPem: approverKey.privateKeyPem }),
  ];
  return {
    nats,
    bus,
    approverKeys: [approverKey.publicKeyDerBase64],
    executorBus: (domains) => nats.connectAs(adaptersIdentity(domains)),
    executorCreds: (domains) => nats.credsOf(adaptersIdentity(domains)),
    agentBus: (principal) => nats.connectAs({ kind: "agent", name: principal }),
    humanBus: (name) => nats.connectAs({ kind: "human", name }),
    log,
    logs: () => lines.join(""),
    track(s) {
      services.unshift(s);
      return s;
    },
    async startAdapters(manifests, o) {
      const bus = await nats.connectAs(adaptersIdentity(manifests.map((m) => m.manifest.domain)));
      const adapters = await startAdaptersService({ bus, log, manifests, ...o, approverKeys: [approverKey.publicKeyDerBase64] });
      services.unshift(adapters);
      return adapters;
    },
    async stop() {
      for (const s of services) await s.stop().catch(() => {});
      await nats.stop();
    },
  };
}

/** A policy with a human approver for write and send, and an agent. */
export const TEST_POLICY: PolicyDocumentInput = {
  version: "adapters-test",
  principals: {
    alice: { kind: "human", approves: ["write", "send"] },
    agent: { kind: "agent" },
  },
  rules: [],
  budgets: {},
  // the fixture's notify says destructiveHint, so it is L5 and would need two people besides its
  // requester; these tests are about versions, not quorum: alice confirms her own call, said here on purpose
  approvalQuorum: [{ id: "fixture-notify-alone", tool: "fixture.notify", level: "L5", approvers: 1, reason: "the adapters tests' fixture: its requester confirms it alone" }],
};

/** A fresh temp folder. */
export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `warden-${prefix}-`));
}

/** Writes a manifest (as YAML) into `dir` and loads it back through the real parser. */
export async function writeManifest(dir: string, name: string, manifest: unknown): Promise<LoadedManifest> {
  const file = join(dir, name);
  writeFileSync(file, stringify(manifest));
  return loadManifestFile(file);
}

/** Every message of WARDEN_CALLS, raw, as one string (to scan for a value that must not be there). */
export async function rawCallsStream(bus: Bus): Promise<string> {
  const info = await bus.jsm.streams.info(STREAM_CALLS);
  const parts: string[] = [];
  for (let seq = info.state.first_seq; seq <= info.state.last_seq && seq > 0; seq++) {
    const m = await bus.jsm.streams.getMessage(STREAM_CALLS, { seq }).catch(() => null);
    if (m) parts.push(m.subject, Buffer.from(m.data).toString("utf8"), JSON.stringify(m.header ?? {}));
  }
  return parts.join("\n");
}

/** Every object in the artifact store, as one string. */
export async function rawArtifacts(bus: Bus): Promise<{ names: string[]; text: string }> {
  const store = await bus.objm.open(OBJECT_STORE_ARTIFACTS);
  const names: string[] = [];
  const parts: string[] = [];
  for (const info of await store.list()) {
    names.push(info.name);
    const bytes = await readArtifact(bus, info.name);
    if (bytes) parts.push(Buffer.from(bytes).toString("utf8"));
  }
  return { names, text: parts.join("\n") };
}

/** True when the process is gone (or a zombie waiting to be reaped: it runs nothing). */
export function processGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return true;
  }
}

/**
 * The host pids of live processes whose command line holds `token`. Pids a process reports about
 * itself are those of its own PID namespace, so a sandboxed process is found by a tag instead.
 */
export function processesTagged(token: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const argv = readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0");
      if (argv.includes(token) && !processGone(Number(name))) found.push(Number(name));
    } catch {
      // gone while we looked
    }
  }
  return found;
}

/** A tag no other process has, to find the processes a test started. */
export function uniqueTag(what: string): string {
  return `warden-test-${what}-${process.pid}-${Math.random().toString(36).slice(2)}`;
}

/** {@link startAdaptersWarden} for the `describe` block this is called in: started before its tests, stopped after them. */
export function useAdaptersWarden(policy: PolicyDocumentInput): AdaptersWarden {
  return useStarted("useAdaptersWarden", () => startAdaptersWarden(policy), (w) => w.stop());
}
