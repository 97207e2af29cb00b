import { spawn, spawnSync } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { connectBus, ensureTopology, loadBusConfig, type Bus } from "@warden/bus";
import { generateApproverKeyPair } from "@warden/approver";
import type { IdentitySpecInput } from "@warden/contracts/permissions";
import type { PolicyDocumentInput } from "@warden/contracts/policy";
import { openWardenHome, type WardenHome } from "@warden/identity";
import { putPolicyDocument } from "@warden/policy";
import { SERVICE_NODE_OPTIONS } from "@warden/service-kit";
import { CHAOS_DOMAIN } from "./chaos-executor.js";
import { managedProcess, startPatiently, type ManagedProcess } from "./managed-process.js";
import { startNatsCluster, startSingleNats, type NatsNodes } from "./nats-nodes.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const EXECUTOR_ENTRY = fileURLToPath(new URL("./chaos-executor.ts", import.meta.url));

export const AGENT = "chaos-agent";
export const APPROVER_PERSON = "alice";

const ADMIN: IdentitySpecInput = { kind: "admin", name: "admin" };
const EXECUTOR: IdentitySpecInput = { kind: "executor", name: "chaos-executor", domains: [CHAOS_DOMAIN] };
const CORE = ["registry", "policy", "approver", "projector", "notary"] as const;

export interface DeploymentOptions {
  /** A 3-node JetStream cluster (streams at 3 replicas) instead of one server. */
  readonly cluster?: boolean;
  /** Copies of the chaos executor (e1, e2, …), sharing its durables as a scaled-out domain would. */
  readonly executors?: number;
  /** The chaos tools' timeoutMs, which is also how long a claim holds before OutcomeUnknown. */
  readonly toolTimeoutMs?: number;
  /** How long a delivered call stays an executor's without a heartbeat. */
  readonly executorAckWaitMs?: number;
  /** One process runs with its clock shifted (libfaketime's offset, e.g. `+5m`), the rest on the machine's. */
  readonly skew?: { readonly service: string; readonly offset: string };
  /** The single server's store on a tmpfs of this size (MiB), so a scenario can fill its disk (root only). */
  readonly storeDiskMiB?: number;
  /** The NATS_URL an identity (by name: `policy`, `chaos-executor`, `admin`, …) connects with; every node by default. */
  readonly natsUrlFor?: (identity: string, nats: NatsNodes) => string | undefined;
}

/** Warden as an operator runs it: a secured server, every service its own OS process and identity. */
export interface Deployment {
  readonly dir: string;
  readonly home: WardenHome;
  readonly nats: NatsNodes;
  /** Sets up and inspects only; never acts as a caller. */
  readonly admin: Bus;
  /** Every Warden process (core services, then executor copies), by name. */
  readonly services: readonly ManagedProcess[];
  service(name: string): ManagedProcess;
  readonly effectsFile: string;
  readonly marksFile: string;
  readonly logDir: string;
  /** A connection as the agent (clients account), what an agent's own process would hold. */
  agentBus(): Promise<Bus>;
  /** A connection as the person who approves sends. */
  approverBus(): Promise<Bus>;
  /** Appends a timestamped line to `<dir>/chaos.log`: what the suite did, next to the processes' logs. */
  note(text: string): void;
  /** The admin's provisioning again (streams, buckets, policy document), as `warden up` does on a new store. */
  provision(): Promise<void>;
  /** Runs the built `warden` CLI against this deployment as the home's admin. */
  cli(args: readonly string[]): Promise<CliRun>;
  stop(): Promise<void>;
}

export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export const CHAOS_POLICY: PolicyDocumentInput = {
  version: "chaos-1",
  principals: {
    [APPROVER_PERSON]: { kind: "human", approves: ["write", "send"] },
    [AGENT]: { kind: "agent" },
  },
  // one agent makes every send; while the approver or the server is down its sends pile up, and
  // the suite measures recovery, not the quota (test/e2e/floods.test.ts does)
  approvalQuota: { maxOpenPerRequester: 100_000 },
};

export async function startDeployment(o: DeploymentOptions = {}): Promise<Deployment> {
  const dir = mkdtempSync(join(tmpdir(), "warden-chaos-"));
  const logDir = join(dir, "logs");
  mkdirSync(logDir);
  const home = openWardenHome(join(dir, "home"));
  const cleanups: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
    // CHAOS_KEEP=1 keeps the logs, stores and side-effect files of a run for a post-mortem
    if (process.env["CHAOS_KEEP"] !== "1") rmSync(dir, { recursive: true, force: true });
  };
  try {
    if (o.storeDiskMiB !== undefined) cleanups.push(mountStoreDisk(home.storeDir, o.storeDiskMiB));
    const nats = o.cluster ? await startNatsCluster(home, logDir) : await startSingleNats(home, logDir);
    cleanups.push(() => nats.stop());
    home.setUrl(nats.url);
    const replicas = o.cluster ? "3" : "1";
    const envOf = async (spec: IdentitySpecInput): Promise<NodeJS.ProcessEnv> => ({
      NATS_URL: o.natsUrlFor?.(spec.name, nats) ?? nats.url,
      NATS_CREDS: (await home.addIdentity(spec)).creds,
      WARDEN_REPLICAS: replicas,
      LOG_LEVEL: process.env["CHAOS_LOG_LEVEL"] ?? "info",
      // the heap bound every Warden process runs with, as docker-compose sets it
      NODE_OPTIONS: `${process.env["NODE_OPTIONS"] ?? ""} ${SERVICE_NODE_OPTIONS}`.trim(),
    });
    const connectAs = async (spec: IdentitySpecInput, name: string) => {
      const bus = await connectBus(loadBusConfig(await envOf(spec)), name);
      cleanups.push(() => bus.close());
      return bus;
    };
    // only the admin provisions: streams, buckets (at 3 replicas on the cluster), the policy document
    const admin = await connectAs(ADMIN, "chaos-admin");
    const provision = async () => {
      await provisionPatiently(admin, o.cluster === true);
      const put = await putPolicyDocument(admin, CHAOS_POLICY);
      if (!put.ok) throw new Error(`chaos policy refused: ${put.error.message}`);
    };
    await provision();

    const key = generateApproverKeyPair();
    const keyFile = join(home.dir, "keys", "approver.pem");
    writeFileSync(keyFile, key.privateKeyPem, { mode: 0o600 });
    home.setApproverPublicKeys([key.publicKeyDerBase64]);
    // the notary seals the history with a key the auditor (`cli audit --verify`) finds pinned in the home
    const notaryKey = generateApproverKeyPair();
    const notaryKeyFile = join(home.dir, "keys", "notary.pem");
    writeFileSync(notaryKeyFile, notaryKey.privateKeyPem, { mode: 0o600 });
    home.setNotaryPublicKeys([notaryKey.publicKeyDerBase64]);
    const effectsFile = join(dir, "effects.log");
    const marksFile = join(dir, "marks.log");
    writeFileSync(effectsFile, "");
    writeFileSync(marksFile, "");

    const started = / started"/;
    const services: ManagedProcess[] = [];
    for (const role of CORE) {
      const extra =
        role === "approver" ? { WARDEN_APPROVER_SIGNING_KEY_FILE: keyFile } : role === "notary" ? { WARDEN_NOTARY_SIGNING_KEY_FILE: notaryKeyFile, WARDEN_NOTARY_INTERVAL_MS: "200" } : {};
      services.push(
        managedProcess({
          name: role,
          ...skewed(o.skew, role, process.execPath, [join(ROOT, "services", role, "dist", "main.js")], { ...process.env, ...(await envOf({ kind: "service", name: role, role })), ...extra }),
          logDir,
          ready: started,
        }),
      );
    }
    for (let i = 1; i <= (o.executors ?? 1); i++) {
      services.push(
        managedProcess({
          name: `executor-e${i}`,
          ...skewed(o.skew, `executor-e${i}`, nodeWithTypeStripping(), [EXECUTOR_ENTRY], {
            ...process.env,
            ...(await envOf(EXECUTOR)),
            WARDEN_APPROVER_PUBLIC_KEYS: key.publicKeyDerBase64,
            CHAOS_EXECUTOR_ID: `e${i}`,
            CHAOS_EFFECTS_FILE: effectsFile,
            CHAOS_MARKS_FILE: marksFile,
            CHAOS_TOOL_TIMEOUT_MS: String(o.toolTimeoutMs ?? 10_000),
            CHAOS_ACK_WAIT_MS: String(o.executorAckWaitMs ?? 5_000),
          }),
          logDir,
          ready: started,
          readyTimeoutMs: 60_000,
        }),
      );
    }
    cleanups.push(() => Promise.all(services.map((s) => s.stop())).then(() => undefined));
    await Promise.all(services.map((s) => startPatiently(s)));

    return {
      dir,
      home,
      nats,
      admin,
      services,
      service(name) {
        const s = services.find((x) => x.name === name);
        if (s === undefined) throw new Error(`no service named ${name}`);
        return s;
      },
      effectsFile,
      marksFile,
      logDir,
      agentBus: () => connectAs({ kind: "agent", name: AGENT }, AGENT),
      approverBus: () => connectAs({ kind: "human", name: APPROVER_PERSON }, APPROVER_PERSON),
      provision,
      note: (text) => appendFileSync(join(dir, "chaos.log"), `${new Date().toISOString()} ${text}\n`),
      cli: (args) => runCli(args, { ...process.env, WARDEN_HOME: home.dir, NATS_URL: nats.url, WARDEN_REPLICAS: replicas }),
      stop: stopAll,
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}

/** Where Debian's libfaketime package puts the library. */
const LIBFAKETIME = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1";

/**
 * The process itself under libfaketime when it is the one whose clock is skewed: the library is
 * preloaded into it, not run through the `faketime` command, which forks and waits, so a SIGKILL
 * of the pid the suite holds would kill only that wrapper and leave the skewed process running.
 */
function skewed(
  skew: DeploymentOptions["skew"],
  name: string,
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
): { command: string; args: readonly string[]; env: NodeJS.ProcessEnv } {
  if (skew?.service !== name) return { command, args, env };
  if (!existsSync(LIBFAKETIME)) throw new Error(`the clock-skew scenarios need libfaketime (${LIBFAKETIME}; Debian: apt-get install faketime)`);
  // an offset from the real time ("+5m"), the clock still running at real speed
  return { command, args, env: { ...env, LD_PRELOAD: LIBFAKETIME, FAKETIME: skew.offset } };
}

/** A tmpfs of `mib` MiB as the server's store; the returned cleanup unmounts it once the server is gone. */
function mountStoreDisk(dir: string, mib: number): () => Promise<void> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const mounted = spawnSync("mount", ["-t", "tmpfs", "-o", `size=${mib}m,mode=0700`, "tmpfs", dir], { encoding: "utf8" });
  if (mounted.status !== 0) throw new Error(`the disk-full scenario mounts a tmpfs as the store and needs root: ${mounted.stderr.trim()}`);
  return async () => {
    spawnSync("umount", ["-l", dir]);
  };
}

/**
 * The admin's provisioning. On a fresh cluster "Server is ready" comes before JetStream has a meta
 * leader, and a 3-replica stream asked for then times out (the cluster scenario died that way):
 * it is asked again until the meta leader accepts it, for at most a minute.
 */
async function provisionPatiently(admin: Bus, cluster: boolean): Promise<void> {
  const deadline = Date.now() + (cluster ? 60_000 : 0);
  for (let attempt = 1; ; attempt++) {
    try {
      await ensureTopology(admin);
      return;
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`provisioning failed after ${attempt} attempts: ${(err as Error).message}`, { cause: err });
      await new Promise((r) => setTimeout(r, Math.min(500 * attempt, 3_000)));
    }
  }
}

/** The executor runs from its .ts source: Node strips the types itself from version 22.6 on. */
function nodeWithTypeStripping(): string {
  const major = Number(process.versions.node.split(".")[0]);
  // the workspace's own Node (a dev dependency) when the test runner runs on an older one
  return major >= 24 ? process.execPath : join(ROOT, "node_modules", ".bin", "node");
}

function runCli(args: readonly string[], env: NodeJS.ProcessEnv): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(ROOT, "cli", "dist", "main.js"), ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (b: Buffer) => (stdout += b.toString()));
    child.stderr.on("data", (b: Buffer) => (stderr = (stderr + b.toString()).slice(-20_000)));
    // a CLI that hangs is a finding too, not a hung suite
    const timer = setTimeout(() => child.kill("SIGKILL"), 300_000);
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
