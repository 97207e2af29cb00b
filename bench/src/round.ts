import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createPrivateKey, createPublicKey, generateKeyPairSync } from "node:crypto";
import { connectBus, ensureTopology, loadBusConfig, requestRpc, type Bus } from "@warden/bus";
import { freePort, startNatsServer } from "@warden/local-nats";
import { STREAM_CALLS, SUBJECT_REGISTRY_LIST, type IdentitySpecInput, type PolicyDocumentInput } from "@warden/contracts";
import { openWardenHome } from "@warden/identity";
import { putPolicyDocument } from "@warden/policy";
import { agentSdkRate } from "./agent-sdk.js";
import { approvalRoundTrip } from "./approval-round-trip.js";
import { cliCpu, cliCpuText } from "./cli-cpu.js";
import { fixedRate, peakRate } from "./load.js";
import { PipelineClient } from "./pipeline-client.js";
import { monotonicMicros, type ProfileWindow } from "./profile-top.js";
import { cpuSeconds, rssBytes, spawnService, stopAll, type ServiceProcess } from "./processes.js";
import { rawPublishRate } from "./raw-publish.js";
import { evidenceBench } from "./evidence-bench.js";
import { resetProjection } from "./projection-reset.js";
import { replayBench } from "./replay-bench.js";
import { summarize } from "./stats.js";
import { numbersOf, type Row, type RoundReport } from "./table.js";

const EVENTS_PER_CALL = 5;
const MiB = 1024 * 1024;
const PERSON = "bench-person";
const AGENT = "bench-agent";
const WRITE_TOOL = "bench.write";

/**
 * The bench's policy: the built-in defaults, plus a person who approves writes and `bench.write`
 * shown to models, so a model's call to it waits for that person (the approval round trip).
 * `bench.echo` calls are decided exactly as with no document.
 */
const BENCH_POLICY: PolicyDocumentInput = {
  version: "bench",
  principals: { [PERSON]: { kind: "human", approves: ["write"] } },
  llm: { showWrite: [WRITE_TOOL] },
};

/**
 * How the services are spread over processes: `colocated` (the default, as docker-compose runs
 * them) puts registry and policy in one process (`cli/dist/colocated-main.js`), each still its
 * own identity and consumer; `separate` gives each its own process.
 */
export type Layout = "colocated" | "separate";

export interface RoundOptions {
  readonly quick: boolean;
  /** Only the peak phase, with a V8 CPU profile of every service written here. */
  readonly profileDir?: string;
  readonly layout: Layout;
}

let profiled: ProfileWindow | undefined;

/** When the last profile run's load ran (monotonic µs): the window its profiles are read in. */
export function profiledWindow(): ProfileWindow | undefined {
  return profiled;
}

/** The processes a round runs, as the table header names them. */
export function layoutText(layout: Layout): string {
  const first = layout === "colocated" ? "registry+policy (one process)" : "registry, policy";
  return `${layout}: ${first}, approver, projector, notary, executor, nats-server, each process its own identity; the load driver (this process) counted on its own line`;
}

/**
 * One bench round: a nats-server of its own (fresh store, free port) secured as `warden up`
 * secures it, every service a process of its own started from the folder this file is in, the
 * load phases, then replay and audit over what the run left. Returns undefined for a profile run.
 */
export async function runRound(o: RoundOptions): Promise<RoundReport | undefined> {
  profiled = undefined;
  const loadStart = loadavg();
  const at = new Date().toISOString();
  const seconds = o.quick ? 3 : 10;

  // secured as `warden up` secures it: every process connects as its own identity
  const homeDir = mkdtempSync(join(tmpdir(), "warden-bench-"));
  const home = openWardenHome(homeDir);
  const port = await freePort();
  const natsLog = process.env["BENCH_NATS_LOG"];
  const server = await startNatsServer({
    configFile: await home.writeServerConfig({ host: "127.0.0.1", port }),
    port,
    storeDir: home.storeDir,
    ...(natsLog ? { logFile: natsLog } : {}),
  });
  const approverPem = generateKeyPairSync("ed25519").privateKey.export({ type: "pkcs8", format: "pem" }).toString();
  const approverPemFile = join(homeDir, "keys", "approver.pem");
  writeFileSync(approverPemFile, approverPem, { mode: 0o600 });
  const approverPublicKey = createPublicKey(createPrivateKey(approverPem)).export({ type: "spki", format: "der" }).toString("base64");
  const notaryPemFile = join(homeDir, "keys", "notary.pem");
  writeFileSync(notaryPemFile, generateKeyPairSync("ed25519").privateKey.export({ type: "pkcs8", format: "pem" }).toString(), { mode: 0o600 });
  const envOf = async (spec: IdentitySpecInput) => ({ NATS_URL: server.url, NATS_CREDS: (await home.addIdentity(spec)).creds });
  // the bench client watches the call stream itself (an agent could not): admin credentials; only
  // the admin creates the topology and the policy, before any service starts
  const bus = await connectBus(loadBusConfig(await envOf({ kind: "admin", name: "admin" })), "bench-client");
  const procs: ServiceProcess[] = [];
  const shutdown = async () => {
    await bus.close();
    await stopAll(procs);
    await server.stop();
    rmSync(homeDir, { recursive: true, force: true });
  };
  try {
    await ensureTopology(bus);
    const put = await putPolicyDocument(bus, BENCH_POLICY);
    if (!put.ok) throw new Error(`bench policy refused: ${put.error.message}`);
    const natsServer = bus.nc.info?.version ?? "unknown";
    procs.push(
      ...(o.layout === "colocated"
        ? [
            spawnService(
              "registry+policy",
              "cli/dist/colocated-main.js",
              {
                NATS_URL: server.url,
                WARDEN_REGISTRY_NATS_CREDS: (await envOf({ kind: "service", name: "registry", role: "registry" })).NATS_CREDS,
                WARDEN_POLICY_NATS_CREDS: (await envOf({ kind: "service", name: "policy", role: "policy" })).NATS_CREDS,
              },
              o.profileDir,
            ),
          ]
        : [
            spawnService("registry", "services/registry/dist/main.js", await envOf({ kind: "service", name: "registry", role: "registry" }), o.profileDir),
            spawnService("policy", "services/policy/dist/main.js", await envOf({ kind: "service", name: "policy", role: "policy" }), o.profileDir),
          ]),
      spawnService(
        "approver",
        "services/approver/dist/main.js",
        { ...(await envOf({ kind: "service", name: "approver", role: "approver" })), WARDEN_APPROVER_SIGNING_KEY_FILE: approverPemFile },
        o.profileDir,
      ),
      // keeps the read models (calls, approvals, budgets) under the load, as every deployment runs it
      spawnService("projector", "services/projector/dist/main.js", await envOf({ kind: "service", name: "projector", role: "projector" }), o.profileDir),
      // seals the history as the run goes, as `warden up` runs it
      spawnService(
        "notary",
        "services/notary/dist/main.js",
        { ...(await envOf({ kind: "service", name: "notary", role: "notary" })), WARDEN_NOTARY_SIGNING_KEY_FILE: notaryPemFile },
        o.profileDir,
      ),
      // the executor beside this file: in a compare run, the copy's own executor kit loads it
      spawnService(
        "executor",
        fileURLToPath(new URL("./echo-executor.js", import.meta.url)),
        { ...(await envOf({ kind: "executor", name: "bench-executor", domains: ["bench"] })), WARDEN_APPROVER_PUBLIC_KEYS: approverPublicKey },
        o.profileDir,
      ),
    );

    await waitForTool(bus, "bench.echo");
    await waitForTool(bus, WRITE_TOOL);
    const client = new PipelineClient(bus);

    process.stdout.write("warming up…\n");
    await peakRate(client, 32, 2);
    if (o.profileDir !== undefined) {
      const fromUs = monotonicMicros();
      const rate = await peakRate(client, 256, 15);
      const toUs = monotonicMicros();
      process.stdout.write(`profiled peak: ${rate.toFixed(0)} calls/s; profiles in ${o.profileDir}\n`);
      // read once the services have exited and written their profiles (shutdown, below)
      profiled = { fromUs, toUs };
      return undefined;
    }

    // what one `warden` command costs a person, against this running system, before any load
    const person = await home.addIdentity({ kind: "human", name: PERSON });
    const cliEnv = { WARDEN_HOME: homeDir, NATS_URL: server.url, LOG_LEVEL: "silent" };
    const cliRuns = o.quick ? 3 : 5;
    const cliHelp = await cliCpu(["help"], cliEnv, cliRuns);
    const cliApprovals = await cliCpu(["approvals", "--as", person.spec.name, "--json"], cliEnv, cliRuns);

    process.stdout.write("raw appends, peak, fixed rates…\n");
    const notaryPid = procs.find((p) => p.name === "notary")?.child.pid;
    const notaryCpu0 = cpuSeconds(notaryPid);
    const seq0 = (await bus.jsm.streams.info(STREAM_CALLS)).state.last_seq;
    const raw = await rawPublishRate(bus, { messages: o.quick ? 20_000 : 100_000, window: 256, payloadBytes: 600 });
    // CPU per governed call, each process and all of them, over the closed-loop phase
    const cpuOf = () => new Map([...procs.map((p) => [p.name, cpuSeconds(p.child.pid)] as const), ["nats-server", cpuSeconds(server.process.pid)] as const]);
    const cpu0 = cpuOf();
    // the load driver: this process appends the requests and watches for their ends, as an agent would
    const driver0 = process.cpuUsage();
    const completed0 = client.completed;
    const peak = await peakRate(client, 1024, seconds);
    const cpu1 = cpuOf();
    const driverUs = cpuMicros(process.cpuUsage(driver0));
    const peakCalls = Math.max(1, client.completed - completed0);
    const perCall = (us: number) => (us / peakCalls).toFixed(0);
    const cpuRows: Row[] = [...cpu1].map(([name, s1]) => ({ label: `  CPU per call at peak: ${name} (µs)`, value: perCall((s1 - (cpu0.get(name) ?? 0)) * 1e6) }));
    const cpuServicesUs = [...cpu1].reduce((sum, [name, s1]) => sum + s1 - (cpu0.get(name) ?? 0), 0) * 1e6;
    client.traceHops();
    const low = await fixedRate(client, 50, seconds / 2);
    const hopRows = hopBreakdown(client.hops!);
    client.hops = undefined;
    const half = await fixedRate(client, Math.max(1, Math.round(peak / 2)), seconds);

    process.stdout.write("agent SDK and approvals…\n");
    // an agent in the clients account, as the SDK calls: request through the export, outcome through the call-read API
    const agentBus = await connectBus(loadBusConfig(await envOf({ kind: "agent", name: AGENT })), "bench-agent");
    const agentOne = await agentSdkRate(agentBus, AGENT, 1, seconds / 2);
    const agentMany = await agentSdkRate(agentBus, AGENT, 256, seconds);
    // a person decides as themself on their own connection, the agent waits on its own
    const personBus = await connectBus(loadBusConfig({ NATS_URL: server.url, NATS_CREDS: person.creds }), "bench-person");
    const approval = await approvalRoundTrip({ agentBus, agent: AGENT, personBus, person: PERSON, tool: WRITE_TOOL, samples: o.quick ? 20 : 50 });
    await personBus.close();
    await agentBus.close();

    process.stdout.write("backlog…\n");
    const backlog = o.quick ? 20_000 : 100_000;
    const all = [...procs.map((p) => ({ name: p.name, pid: p.child.pid })), { name: "nats-server", pid: server.process.pid }];
    const base = new Map(all.map((p) => [p.name, rssBytes(p.pid)]));
    const baseline = [...base.values()].reduce((a, b) => a + b, 0);
    let peakRss = baseline;
    const peakBy = new Map(base);
    const sampler = setInterval(() => {
      let now = 0;
      for (const p of all) {
        const r = rssBytes(p.pid);
        now += r;
        peakBy.set(p.name, Math.max(peakBy.get(p.name) ?? 0, r));
      }
      peakRss = Math.max(peakRss, now);
    }, 50);
    const storedBefore = (await bus.jsm.streams.info(STREAM_CALLS)).state.messages;
    const t0 = performance.now();
    const finishes: Promise<boolean>[] = [];
    for (let i = 0; i < backlog; i += 500) {
      const batch = await Promise.all(Array.from({ length: Math.min(500, backlog - i) }, (_, j) => client.send(i + j, "bench-backlog")));
      finishes.push(...batch.map((b) => b.finished));
    }
    const inFlightAtEnd = client.inFlight;
    await Promise.all(finishes);
    const drainRate = backlog / ((performance.now() - t0) / 1000);
    clearInterval(sampler);
    const memPer100k = ((peakRss - baseline) / backlog) * 100_000;
    // what the server keeps for calls it stores (every event its own subject), once they are done
    const natsRssAfter = rssBytes(server.process.pid);
    const callsStoredInBacklog = ((await bus.jsm.streams.info(STREAM_CALLS)).state.messages - storedBefore) / EVENTS_PER_CALL;
    const natsPer100kStored = ((natsRssAfter - (base.get("nats-server") ?? 0)) / Math.max(1, callsStoredInBacklog)) * 100_000;

    const callsStored = ((await bus.jsm.streams.info(STREAM_CALLS)).state.last_seq - seq0) / EVENTS_PER_CALL;
    const notaryUsPerCall = ((cpuSeconds(notaryPid) - notaryCpu0) * 1e6) / Math.max(1, callsStored);
    const ceiling = raw / EVENTS_PER_CALL;
    client.close();

    // replay and trace over what the run left on the stream; the services stop first
    await stopAll(procs);
    process.stdout.write("replay and audit (services stopped)…\n");
    await resetProjection(bus);
    const auditLimitS = o.quick ? 240 : 900;
    type Rows = [string, string][];
    const audit = await withinSeconds(auditLimitS, async (): Promise<[Rows, Rows]> => [
      await replayBench(bus, { minEvents: 100_000, traces: o.quick ? 100 : 500, projectorSeconds: o.quick ? 10 : 30 }),
      await evidenceBench(bus, { messages: 50_000, eventsPerCall: EVENTS_PER_CALL, approverKeys: [approverPublicKey] }),
    ]);
    // a stream read that never ends (seen once on a box at load 25) must not keep the round from its other rows
    const [replayRows, evidenceRows]: [Rows, Rows] = audit ?? [[["replay and audit", `did not finish within ${auditLimitS} s`]], []];
    const replayRatio = replayVsRead(replayRows);

    const approvalFailed = approval.failed > 0 ? `, ${approval.failed} failed: ${approval.firstFailure ?? ""}` : "";
    const targets: Row[] = [
      { label: "raw JetStream appends/s (same stream settings)", value: raw.toFixed(0) },
      { label: `  ÷ ${EVENTS_PER_CALL} events per call = ceiling calls/s`, value: ceiling.toFixed(0) },
      { label: "closed-loop calls/s (1024 callers)", value: peak.toFixed(0) },
      {
        label: `closed-loop calls/s ÷ (raw appends/s ÷ ${EVENTS_PER_CALL} events per call) (%)`,
        value: ((peak / ceiling) * 100).toFixed(1),
        target: { text: "≥ 50", checks: [{ index: 0, op: ">=", limit: 50 }] },
      },
      {
        label: "CPU per governed read call at peak, whole deployment incl. driver (µs; 10 ms ticks)",
        value: perCall(cpuServicesUs + driverUs),
        target: { text: "≤ 900", checks: [{ index: 0, op: "<=", limit: 900 }] },
      },
      { label: "  services and nats-server, without the driver (µs)", value: perCall(cpuServicesUs) },
      ...cpuRows,
      { label: "  CPU per call at peak: load driver, this process (µs)", value: perCall(driverUs) },
      {
        label: "p50 / p99 latency at 50 calls/s (ms)",
        value: `${low.p50.toFixed(2)} / ${low.p99.toFixed(2)}`,
        target: {
          text: "≤ 3 / ≤ 10",
          checks: [
            { index: 0, op: "<=", limit: 3 },
            { index: 1, op: "<=", limit: 10 },
          ],
        },
      },
      { label: `p50 / p99 latency at half of peak, ${Math.round(peak / 2)} calls/s (ms)`, value: `${half.p50.toFixed(2)} / ${half.p99.toFixed(2)}` },
      {
        label: `approval round trip, approve → agent sees result: p50 / p99 (ms, ${approval.n} approvals${approvalFailed})`,
        value: `${approval.p50.toFixed(2)} / ${approval.p99.toFixed(2)}`,
        target: { text: "p50 ≤ 4", checks: [{ index: 0, op: "<=", limit: 4 }] },
      },
      {
        label: "replay into every read model ÷ plain read of the same stream (%)",
        value: replayRatio === undefined ? "n/a (replay rows not found)" : (replayRatio * 100).toFixed(1),
        target: { text: "≥ 70", checks: [{ index: 0, op: ">=", limit: 70 }] },
      },
      {
        label: `nats-server RSS growth per 100k calls stored (MiB; ${callsStoredInBacklog.toFixed(0)} calls stored by the backlog, scaled)`,
        value: (natsPer100kStored / MiB).toFixed(1),
        target: { text: "≤ 150", checks: [{ index: 0, op: "<=", limit: 150 }] },
      },
    ];
    const details: Row[] = [
      { label: "  achieved rate at half of peak (completed calls/s)", value: half.achievedRate.toFixed(0) },
      { label: "agent SDK call(), clients account, one caller: p50 / p99 (ms)", value: `${agentOne.p50.toFixed(2)} / ${agentOne.p99.toFixed(2)}` },
      { label: "agent SDK call(), clients account, 256 callers: calls/s", value: `${agentMany.rate.toFixed(0)} (p50 ${agentMany.p50.toFixed(1)} ms, ${agentMany.failed} failed)` },
      { label: "  approve() answered (decision recorded): p50 / p99 (ms)", value: `${approval.decision.p50.toFixed(2)} / ${approval.decision.p99.toFixed(2)}` },
      { label: `backlog of ${backlog} calls: drained at calls/s`, value: drainRate.toFixed(0) },
      { label: "  calls in flight when the last was published", value: String(inFlightAtEnd) },
      { label: "memory per 100k calls in flight (peak RSS growth, all processes, MiB)", value: (memPer100k / MiB).toFixed(1) },
      ...all.map((p): Row => ({ label: `  peak RSS growth: ${p.name} (MiB)`, value: (((peakBy.get(p.name) ?? 0) - (base.get(p.name) ?? 0)) / MiB).toFixed(1) })),
      { label: "failed calls", value: String(client.failed) },
      { label: "notary process CPU per call stored over the run (µs; 10 ms ticks)", value: notaryUsPerCall.toFixed(1) },
      { label: `CPU (user+sys) of \`warden help\`, median of ${cliRuns}`, value: cliCpuText(cliHelp) },
      { label: `CPU (user+sys) of \`warden approvals --as P --json\`, median of ${cliRuns}`, value: cliCpuText(cliApprovals) },
      ...hopRows,
      ...[...replayRows, ...evidenceRows].map(([label, value]): Row => ({ label, value })),
    ];
    return { mode: o.quick ? "quick" : "full", layout: layoutText(o.layout), at, node: process.version, natsServer, loadStart, loadEnd: loadavg(), targets, details };
  } finally {
    await shutdown();
  }
}

function cpuMicros(u: NodeJS.CpuUsage): number {
  return u.user + u.system;
}

async function withinSeconds<T>(seconds: number, run: () => Promise<T>): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), seconds * 1000)));
  try {
    return await Promise.race([run(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Replay rate over the plain read rate, both from the replay bench's rows (matched by their
 * labels: that file is another's to change, so a renamed row makes this n/a, never wrong).
 */
function replayVsRead(rows: readonly (readonly [string, string])[]): number | undefined {
  const rate = (re: RegExp) => {
    const row = rows.find(([label]) => re.test(label));
    return row === undefined ? undefined : numbersOf(row[1])[0];
  };
  const read = rate(/^raw .*read/i);
  const replay = rate(/^replay into/i);
  return read === undefined || replay === undefined || read === 0 ? undefined : replay / read;
}

/** Median time from the request until each event was seen by the client, at low load. */
function hopBreakdown(hops: Map<string, Map<string, number>>): Row[] {
  // the subject token each event is stored under (a result lives in the shared Outcome slot)
  const types = ["ToolCallRequested", "ToolArgsValidated", "ToolPolicyChecked", "ToolCallStarted", "Outcome"];
  return types.map((t) => {
    const values = [...hops.values()].flatMap((m) => (m.has(t) ? [m.get(t)!] : []));
    return { label: `  at 50 calls/s, ${t} seen after (p50 ms)`, value: summarize(values).p50.toFixed(2) };
  });
}

async function waitForTool(b: Bus, name: string): Promise<void> {
  // generous: on a box shared with other work (load 20 on 2 cores) seven processes take long to start
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    const reply = await requestRpc(b, SUBJECT_REGISTRY_LIST, {}, 1_000);
    if (reply.ok && JSON.stringify(reply.value).includes(`"${name}"`)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${name} was not registered within 90s`);
}
