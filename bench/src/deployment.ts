import { createPrivateKey, createPublicKey, generateKeyPairSync } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ChildProcess } from "node:child_process";
import { connectBus, ensureTopology, loadBusConfig, type Bus } from "@warden/bus";
import type { IdentitySpecInput, ServiceRole } from "@warden/contracts/permissions";
import type { PolicyDocumentInput } from "@warden/contracts/policy";
import { openWardenHome, type WardenHome } from "@warden/identity";
import { freePort, startNatsServer, type LocalNatsServer } from "@warden/local-nats";
import { putPolicyDocument } from "@warden/policy";
import { layoutText, type Layout } from "./layout.js";
import { descendantsOf, readProcTable } from "./process-tree.js";
import { spawnService, stopAll, type ServiceProcess } from "./processes.js";

/** A process whose CPU and memory the round reads from /proc. */
export interface MeasuredProcess {
  readonly name: string;
  readonly pid: number | undefined;
}

/** Warden as one layout runs it, secured, with the bench's policy and executor. */
export interface Deployment {
  /** The table header's line for the layout (round.ts). */
  readonly layoutText: string;
  readonly homeDir: string;
  readonly home: WardenHome;
  readonly url: string;
  /** The base64 SPKI keys executors and the evidence check pin. */
  readonly approverPublicKeys: readonly string[];
  /** Every process of the deployment (services, executor, nats-server), the load driver not among them. */
  readonly processes: readonly MeasuredProcess[];
  readonly natsPid: number | undefined;
  /** nats-server's Go profiler port, when profiling (`profileDir`). */
  readonly natsProfPort: number | undefined;
  /** The notary's own process, in the layouts where it has one. */
  readonly notaryPid: number | undefined;
  /** The admin's connection (as an operator connects), until `stopServices` hands out the next. */
  readonly bus: Bus;
  /** `NATS_URL` and `NATS_CREDS` of a new identity of this home. */
  credsEnv(spec: IdentitySpecInput): Promise<{ NATS_URL: string; NATS_CREDS: string }>;
  /**
   * Stops every service and the executor; the stream stays served for the replay and audit rows
   * (in `up`, whose nats-server stops with it, by a nats-server the bench starts on its store).
   * Returns the admin's connection to use from then on.
   */
  stopServices(): Promise<Bus>;
  /** Stops everything and removes the home. */
  shutdown(): Promise<void>;
}

export interface DeploymentOptions {
  readonly layout: Layout;
  /** The bench's policy, stored by the admin before the executor starts. */
  readonly policy: PolicyDocumentInput;
  /** A V8 CPU profile of every Node process, written here (and nats-server's profiler opened: `natsProfPort`). */
  readonly profileDir?: string;
}

// on a box shared with other work (load 20 on 2 cores) warden up takes long to start
const UP_START_LIMIT_MS = 120_000;

export function startDeployment(o: DeploymentOptions): Promise<Deployment> {
  return o.layout === "up" ? startUp(o) : startCompose(o);
}

/** The executor beside this file: in a compare run, the copy's own executor kit loads it. */
function spawnExecutor(env: { NATS_URL: string; NATS_CREDS: string }, approverPublicKeys: readonly string[], profileDir: string | undefined): ServiceProcess {
  return spawnService(
    "executor",
    fileURLToPath(new URL("./echo-executor.js", import.meta.url)),
    { ...env, WARDEN_APPROVER_PUBLIC_KEYS: approverPublicKeys.join(",") },
    profileDir === undefined ? {} : { profileDir },
  );
}

async function putBenchPolicy(bus: Bus, policy: PolicyDocumentInput): Promise<void> {
  const put = await putPolicyDocument(bus, policy);
  if (!put.ok) throw new Error(`bench policy refused: ${put.error.message}`);
}

async function adminBus(home: WardenHome, url: string): Promise<Bus> {
  const admin = home.identity("admin") ?? (await home.addIdentity({ kind: "admin", name: "admin" }));
  return connectBus(loadBusConfig({ NATS_URL: url, NATS_CREDS: admin.creds }), "bench-client");
}

/**
 * `warden up` (the built CLI of the repository this file is in, not --demo) as a child process on
 * a home of its own, starting its own nats-server; then, as an operator and a domain team would,
 * the admin's connection from the home, the bench's policy, and the executor with an identity of
 * its own in its own process.
 */
async function startUp(o: DeploymentOptions): Promise<Deployment> {
  const dir = mkdtempSync(join(tmpdir(), "warden-bench-"));
  const homeDir = join(dir, "home");
  const natsProfPort = o.profileDir === undefined ? undefined : await freePort();
  // nothing of this shell's deployment (its server, credentials, home, trace export) reaches the
  // child; the nats-server binary to run (NATS_SERVER_BIN) does: it is what is being measured
  const cleared = Object.fromEntries(Object.keys(process.env).filter((k) => /^(NATS_|WARDEN_|OTEL_)/.test(k) && k !== "NATS_SERVER_BIN").map((k) => [k, undefined]));
  const up = spawnService(
    "warden-up",
    "cli/dist/main.js",
    { ...cleared, WARDEN_HOME: homeDir, WARDEN_NOTARY_HOME: join(dir, "notary"), ...(natsProfPort === undefined ? {} : { WARDEN_NATS_PROF_PORT: String(natsProfPort) }) },
    { args: ["up", "--nats-port", "0", "--json"], pipeStdout: true, ...(o.profileDir === undefined ? {} : { profileDir: o.profileDir }) },
  );
  const procs: ServiceProcess[] = [up];
  let server: LocalNatsServer | undefined;
  let bus: Bus | undefined;
  const shutdown = async () => {
    await bus?.close().catch(() => undefined);
    await stopAll(procs);
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const summary = await upSummary(up.child, UP_START_LIMIT_MS);
    // what warden up wrote: the trust root, every identity it runs as, the server's URL, the approver's key
    const home = openWardenHome(homeDir);
    const below = descendantsOf(up.child.pid!, readProcTable());
    const natsPid = below.find((p) => p.comm === "nats-server")?.pid;
    if (natsPid === undefined) throw new Error(`warden up started no nats-server of its own (processes below it: ${below.map((p) => p.comm).join(", ") || "none"})`);
    bus = await adminBus(home, summary.url);
    await putBenchPolicy(bus, o.policy);
    const credsEnv = async (spec: IdentitySpecInput) => ({ NATS_URL: summary.url, NATS_CREDS: (await home.addIdentity(spec)).creds });
    const approverPublicKeys = home.env().approverPublicKeys;
    const executor = spawnExecutor(await credsEnv({ kind: "executor", name: "bench-executor", domains: ["bench"] }), approverPublicKeys, o.profileDir);
    procs.push(executor);
    const processes: MeasuredProcess[] = [
      { name: "warden up (all services)", pid: up.child.pid },
      { name: "executor", pid: executor.child.pid },
      // anything else warden up started is counted too, by its command name
      ...below.filter((p) => p.pid !== natsPid).map((p) => ({ name: `warden up's ${p.comm}`, pid: p.pid })),
      { name: "nats-server", pid: natsPid },
    ];
    return {
      layoutText: layoutText("up", summary.services),
      homeDir,
      home,
      url: summary.url,
      approverPublicKeys,
      processes,
      natsPid,
      natsProfPort,
      notaryPid: undefined,
      get bus() {
        return bus!;
      },
      credsEnv,
      async stopServices() {
        await bus?.close();
        bus = undefined;
        // warden up drains its services and stops its nats-server
        await stopAll(procs);
        const port = await freePort();
        server = await startNatsServer({ configFile: await home.writeServerConfig({ host: "127.0.0.1", port }), port, storeDir: home.storeDir });
        bus = await adminBus(home, server.url);
        return bus;
      },
      shutdown,
    };
  } catch (err) {
    await shutdown();
    throw err;
  }
}

/** What `warden up --json` printed once everything runs: one JSON document on stdout. */
function upSummary(child: ChildProcess, limitMs: number): Promise<{ url: string; services: string[] }> {
  return new Promise((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => finish(new Error(`warden up was not up within ${limitMs / 1000} s; it printed: ${out.slice(-2_000)}`)), limitMs);
    const finish = (err?: Error, value?: { url: string; services: string[] }) => {
      clearTimeout(timer);
      child.stdout?.removeAllListeners("data");
      child.removeListener("exit", exited);
      // later output (none is expected) must not fill the pipe and block the child
      child.stdout?.resume();
      if (err) reject(err);
      else resolve(value!);
    };
    const exited = (code: number | null) => finish(new Error(`warden up exited (${code}) before it was up; it printed: ${out.slice(-2_000)}`));
    child.once("exit", exited);
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      let doc: { ok?: boolean; url?: string; services?: string[] };
      try {
        doc = JSON.parse(out) as typeof doc;
      } catch {
        return; // not whole yet
      }
      if (doc.ok === true && typeof doc.url === "string") finish(undefined, { url: doc.url, services: doc.services ?? [] });
      else finish(new Error(`warden up did not start: ${out.slice(-2_000)}`));
    });
  });
}

/**
 * docker-compose's layout: a nats-server the bench starts, secured as `warden up` secures it, and
 * every service a process of its own started from the folder this file is in (registry and
 * policy in one for `compose`), each connected as its own identity.
 */
async function startCompose(o: DeploymentOptions): Promise<Deployment> {
  const homeDir = mkdtempSync(join(tmpdir(), "warden-bench-"));
  const home = openWardenHome(homeDir);
  const port = await freePort();
  const natsProfPort = o.profileDir === undefined ? undefined : await freePort();
  const natsLog = process.env["BENCH_NATS_LOG"];
  const server = await startNatsServer({
    configFile: await home.writeServerConfig({ host: "127.0.0.1", port, ...(natsProfPort === undefined ? {} : { profPort: natsProfPort }) }),
    port,
    storeDir: home.storeDir,
    ...(natsLog ? { logFile: natsLog } : {}),
  });
  const profile = o.profileDir === undefined ? {} : { profileDir: o.profileDir };
  const keyFile = (name: string) => {
    const pem = generateKeyPairSync("ed25519").privateKey.export({ type: "pkcs8", format: "pem" }).toString();
    const file = join(homeDir, "keys", `${name}.pem`);
    writeFileSync(file, pem, { mode: 0o600 });
    return { file, publicKey: createPublicKey(createPrivateKey(pem)).export({ type: "spki", format: "der" }).toString("base64") };
  };
  const approverKey = keyFile("approver");
  const notaryKey = keyFile("notary");
  const credsEnv = async (spec: IdentitySpecInput) => ({ NATS_URL: server.url, NATS_CREDS: (await home.addIdentity(spec)).creds });
  const serviceEnv = (role: ServiceRole) => credsEnv({ kind: "service", name: role, role });
  // the bench client watches the call stream itself (an agent could not): admin credentials; only
  // the admin creates the topology and the policy, before any service starts
  const bus = await adminBus(home, server.url);
  const procs: ServiceProcess[] = [];
  const shutdown = async () => {
    await bus.close();
    await stopAll(procs);
    await server.stop();
    rmSync(homeDir, { recursive: true, force: true });
  };
  try {
    await ensureTopology(bus);
    await putBenchPolicy(bus, o.policy);
    procs.push(
      ...(o.layout === "compose"
        ? [
            spawnService(
              "registry+policy",
              "cli/dist/colocated-main.js",
              { NATS_URL: server.url, WARDEN_REGISTRY_NATS_CREDS: (await serviceEnv("registry")).NATS_CREDS, WARDEN_POLICY_NATS_CREDS: (await serviceEnv("policy")).NATS_CREDS },
              profile,
            ),
          ]
        : [spawnService("registry", "services/registry/dist/main.js", await serviceEnv("registry"), profile), spawnService("policy", "services/policy/dist/main.js", await serviceEnv("policy"), profile)]),
      spawnService("approver", "services/approver/dist/main.js", { ...(await serviceEnv("approver")), WARDEN_APPROVER_SIGNING_KEY_FILE: approverKey.file }, profile),
      // keeps the read models (calls, approvals, budgets) under the load, as every deployment runs it
      spawnService("projector", "services/projector/dist/main.js", await serviceEnv("projector"), profile),
      // seals the history as the run goes, as `warden up` runs it
      spawnService("notary", "services/notary/dist/main.js", { ...(await serviceEnv("notary")), WARDEN_NOTARY_SIGNING_KEY_FILE: notaryKey.file }, profile),
      spawnExecutor(await credsEnv({ kind: "executor", name: "bench-executor", domains: ["bench"] }), [approverKey.publicKey], o.profileDir),
    );
    return {
      layoutText: layoutText(o.layout),
      homeDir,
      home,
      url: server.url,
      approverPublicKeys: [approverKey.publicKey],
      processes: [...procs.map((p) => ({ name: p.name, pid: p.child.pid })), { name: "nats-server", pid: server.process.pid }],
      natsPid: server.process.pid,
      natsProfPort,
      notaryPid: procs.find((p) => p.name === "notary")?.child.pid,
      bus,
      credsEnv,
      async stopServices() {
        await stopAll(procs);
        return bus;
      },
      shutdown,
    };
  } catch (err) {
    await shutdown();
    throw err;
  }
}
