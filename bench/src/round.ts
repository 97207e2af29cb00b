import { loadavg } from "node:os";
import { join } from "node:path";
import { connectBus, loadBusConfig, requestRpc, type Bus } from "@warden/bus";
import { STREAM_CALLS, SUBJECT_REGISTRY_LIST } from "@warden/contracts/subjects";
import { type PolicyDocumentInput } from "@warden/contracts/policy";
import { agentSdkRate } from "./agent-sdk.js";
import { approvalRoundTrip } from "./approval-round-trip.js";
import { cliCpu, cliCpuText } from "./cli-cpu.js";
import { fixedRate, peakRate } from "./load.js";
import { PipelineClient } from "./pipeline-client.js";
import { fetchGoProfile, NATS_PROFILE_FILE } from "./go-profile-top.js";
import { monotonicMicros, type ProfileWindow } from "./profile-top.js";
import { startDeployment } from "./deployment.js";
import type { Layout } from "./layout.js";
import { cpuSeconds, rssBytes } from "./processes.js";
import { waitForConsumersDrained } from "./consumers-drained.js";
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

/**
 * One bench round: Warden as the layout runs it (deployment.ts: a home, a nats-server and store of
 * its own, free ports, every service from the folder this file is in), the load phases, then
 * replay and audit over what the run left. Returns undefined for a profile run.
 */
export async function runRound(o: RoundOptions): Promise<RoundReport | undefined> {
  profiled = undefined;
  const loadStart = loadavg();
  const at = new Date().toISOString();
  const seconds = o.quick ? 3 : 10;

  // secured as `warden up` secures it: every process connects as its own identity
  const d = await startDeployment({ layout: o.layout, policy: BENCH_POLICY, ...(o.profileDir === undefined ? {} : { profileDir: o.profileDir }) });
  // the admin's connection: the bench client watches the call stream itself (an agent could not)
  let bus = d.bus;
  try {
    const natsServer = bus.nc.info?.version ?? "unknown";
    await waitForTool(bus, "bench.echo");
    await waitForTool(bus, WRITE_TOOL);
    const client = new PipelineClient(bus);

    process.stdout.write("warming up…\n");
    await peakRate(client, 32, 2);
    if (o.profileDir !== undefined) {
      const fromUs = monotonicMicros();
      // nats-server's own profile over the same load (Go pprof, read by go-profile-top.ts)
      const serverProfile = d.natsProfPort === undefined ? undefined : fetchGoProfile(d.natsProfPort, 15, join(o.profileDir, NATS_PROFILE_FILE));
      const natsCpu0 = cpuSeconds(d.natsPid);
      const rate = await peakRate(client, 256, 15);
      await serverProfile;
      // what the kernel counted for the server in the same 15 s, to read the profile's total against
      process.stdout.write(`nats-server CPU in the profiled 15 s (from /proc): ${((cpuSeconds(d.natsPid) - natsCpu0) * 1000).toFixed(0)} ms\n`);
      await waitForConsumersDrained(bus, 120_000);
      const toUs = monotonicMicros();
      process.stdout.write(`profiled peak: ${rate.toFixed(0)} calls/s; profiles in ${o.profileDir}\n`);
      // read once the services have exited and written their profiles (shutdown, below)
      profiled = { fromUs, toUs };
      return undefined;
    }

    // what one `warden` command costs a person, against this running system, before any load
    const person = await d.home.addIdentity({ kind: "human", name: PERSON });
    const cliEnv = { WARDEN_HOME: d.homeDir, NATS_URL: d.url, LOG_LEVEL: "silent" };
    const cliRuns = o.quick ? 3 : 5;
    const cliHelp = await cliCpu(["help"], cliEnv, cliRuns);
    const cliApprovals = await cliCpu(["approvals", "--as", person.spec.name, "--json"], cliEnv, cliRuns);

    process.stdout.write("raw appends, peak, fixed rates…\n");
    const notaryCpu0 = cpuSeconds(d.notaryPid);
    const seq0 = (await bus.jsm.streams.info(STREAM_CALLS)).state.last_seq;
    const raw = await rawPublishRate(bus, { messages: o.quick ? 20_000 : 100_000, window: 256, payloadBytes: 600 });
    // CPU per governed call, each process and all of them, over the closed-loop phase
    const cpuOf = () => new Map(d.processes.map((p) => [p.name, cpuSeconds(p.pid)] as const));
    const cpu0 = cpuOf();
    // the load driver: this process appends the requests and watches for their ends, as an agent would
    const driver0 = process.cpuUsage();
    const completed0 = client.completed;
    const peak = await peakRate(client, 1024, seconds);
    // the peak's calls are done for the agent before the projector and notary have read them all:
    // their CPU for those calls counts, so the window ends when every durable consumer caught up
    const catchUp = await waitForConsumersDrained(bus, 120_000);
    const cpu1 = cpuOf();
    const driverUs = cpuMicros(process.cpuUsage(driver0));
    const peakCalls = Math.max(1, client.completed - completed0);
    const perCall = (us: number) => (us / peakCalls).toFixed(0);
    const cpuRows: Row[] = [...cpu1].map(([name, s1]) => ({ label: `  CPU per call at peak: ${name} (µs)`, value: perCall((s1 - (cpu0.get(name) ?? 0)) * 1e6) }));
    const cpuServicesUs = [...cpu1].reduce((sum, [name, s1]) => sum + s1 - (cpu0.get(name) ?? 0), 0) * 1e6;
    client.traceHops();
    // latency at a fixed rate is the steady state's: begun on a backlog it would measure the backlog
    const low = await fixedRate(client, 50, seconds / 2);
    const hopRows = hopBreakdown(client.hops!);
    client.hops = undefined;
    await waitForConsumersDrained(bus, 120_000);
    const half = await fixedRate(client, Math.max(1, Math.round(peak / 2)), seconds);

    await waitForConsumersDrained(bus, 120_000);
    process.stdout.write("agent SDK and approvals…\n");
    // an agent in the clients account, as the SDK calls: request through the export, outcome through the call-read API
    const agentBus = await connectBus(loadBusConfig(await d.credsEnv({ kind: "agent", name: AGENT })), "bench-agent");
    const agentOne = await agentSdkRate(agentBus, AGENT, 1, seconds / 2);
    const agentMany = await agentSdkRate(agentBus, AGENT, 256, seconds);
    // a person decides as themself on their own connection, the agent waits on its own
    const personBus = await connectBus(loadBusConfig({ NATS_URL: d.url, NATS_CREDS: person.creds }), "bench-person");
    const approval = await approvalRoundTrip({ agentBus, agent: AGENT, personBus, person: PERSON, tool: WRITE_TOOL, samples: o.quick ? 20 : 50 });
    await personBus.close();
    await agentBus.close();

    process.stdout.write("backlog…\n");
    const backlog = o.quick ? 20_000 : 100_000;
    const all = d.processes;
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
    const natsRssAfter = rssBytes(d.natsPid);
    const callsStoredInBacklog = ((await bus.jsm.streams.info(STREAM_CALLS)).state.messages - storedBefore) / EVENTS_PER_CALL;
    const natsPer100kStored = ((natsRssAfter - (base.get("nats-server") ?? 0)) / Math.max(1, callsStoredInBacklog)) * 100_000;

    const callsStored = ((await bus.jsm.streams.info(STREAM_CALLS)).state.last_seq - seq0) / EVENTS_PER_CALL;
    const notaryUsPerCall = ((cpuSeconds(d.notaryPid) - notaryCpu0) * 1e6) / Math.max(1, callsStored);
    const ceiling = raw / EVENTS_PER_CALL;
    client.close();

    // replay and trace over what the run left on the stream; the services stop first
    bus = await d.stopServices();
    process.stdout.write("replay and audit (services stopped)…\n");
    await resetProjection(bus);
    const auditLimitS = o.quick ? 240 : 900;
    type Rows = [string, string][];
    const audit = await withinSeconds(auditLimitS, async (): Promise<[Rows, Rows]> => [
      await replayBench(bus, { minEvents: 100_000, traces: o.quick ? 100 : 500, projectorSeconds: o.quick ? 10 : 30 }),
      await evidenceBench(bus, { messages: 50_000, eventsPerCall: EVENTS_PER_CALL, approverKeys: d.approverPublicKeys }),
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
        label: "  after the peak, every consumer caught up in (s; messages left then)",
        value: `${(catchUp.ms / 1000).toFixed(1)} (${catchUp.leftAtStart})${catchUp.behind.length > 0 ? `; still behind: ${catchUp.behind.join(", ")}` : ""}`,
      },
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
      { label: "  appends asked again after their ack timed out", value: String(client.appendRetries) },
      { label: "memory per 100k calls in flight (peak RSS growth, all processes, MiB)", value: (memPer100k / MiB).toFixed(1) },
      ...all.map((p): Row => ({ label: `  peak RSS growth: ${p.name} (MiB)`, value: (((peakBy.get(p.name) ?? 0) - (base.get(p.name) ?? 0)) / MiB).toFixed(1) })),
      { label: "failed calls", value: String(client.failed) },
      {
        label: "notary process CPU per call stored over the run (µs; 10 ms ticks)",
        value: d.notaryPid === undefined ? "n/a (the notary runs in a process with other services)" : notaryUsPerCall.toFixed(1),
      },
      { label: `CPU (user+sys) of \`warden help\`, median of ${cliRuns}`, value: cliCpuText(cliHelp) },
      { label: `CPU (user+sys) of \`warden approvals --as P --json\`, median of ${cliRuns}`, value: cliCpuText(cliApprovals) },
      ...hopRows,
      ...[...replayRows, ...evidenceRows].map(([label, value]): Row => ({ label, value })),
    ];
    return { mode: o.quick ? "quick" : "full", layout: d.layoutText, at, node: process.version, natsServer, loadStart, loadEnd: loadavg(), targets, details };
  } finally {
    await d.shutdown();
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
