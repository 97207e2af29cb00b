#!/usr/bin/env node
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createPrivateKey, createPublicKey, generateKeyPairSync } from "node:crypto";
import { connectBus, ensureTopology, loadBusConfig, requestRpc } from "@warden/bus";
import { freePort, startNatsServer } from "@warden/local-nats";
import { STREAM_CALLS, SUBJECT_REGISTRY_LIST, type IdentitySpecInput } from "@warden/contracts";
import { openWardenHome } from "@warden/identity";
import { agentSdkRate } from "./agent-sdk.js";
import { cliCpu, cliCpuText } from "./cli-cpu.js";
import { fixedRate, peakRate } from "./load.js";
import { PipelineClient } from "./pipeline-client.js";
import { cpuSeconds, rssBytes, spawnService, stopAll, type ServiceProcess } from "./processes.js";
import { rawPublishRate } from "./raw-publish.js";
import { evidenceBench } from "./evidence-bench.js";
import { replayBench } from "./replay-bench.js";
import { summarize } from "./stats.js";

/**
 * End-to-end `read` calls in `llm` mode, every service in its own process, NATS on this box;
 * printed next to raw JetStream append throughput from the same run.
 */
const EVENTS_PER_CALL = 5;
const quick = process.argv.includes("--quick");
// --profile DIR: only the peak phase, with a V8 CPU profile of every service written to DIR
const profileAt = process.argv.indexOf("--profile");
const profileDir = profileAt >= 0 ? process.argv[profileAt + 1] : undefined;
const seconds = quick ? 3 : 10;

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
// the admin creates the topology, before any service starts
const bus = await connectBus(loadBusConfig(await envOf({ kind: "admin", name: "admin" })), "bench-client");
await ensureTopology(bus);
const procs: ServiceProcess[] = [
  spawnService("registry", "services/registry/dist/main.js", await envOf({ kind: "service", name: "registry", role: "registry" }), profileDir),
  spawnService("policy", "services/policy/dist/main.js", await envOf({ kind: "service", name: "policy", role: "policy" }), profileDir),
  spawnService(
    "approver",
    "services/approver/dist/main.js",
    { ...(await envOf({ kind: "service", name: "approver", role: "approver" })), WARDEN_APPROVER_SIGNING_KEY_FILE: approverPemFile },
    profileDir,
  ),
  // seals the history as the run goes, as `warden up` runs it
  spawnService(
    "notary",
    "services/notary/dist/main.js",
    { ...(await envOf({ kind: "service", name: "notary", role: "notary" })), WARDEN_NOTARY_SIGNING_KEY_FILE: notaryPemFile },
    profileDir,
  ),
  spawnService("executor", "bench/dist/echo-executor.js", await envOf({ kind: "executor", name: "bench-executor", domains: ["bench"] }), profileDir),
];

try {
  await waitForTool(bus, "bench.echo");
  const client = new PipelineClient(bus);

  process.stdout.write("warming up…\n");
  await peakRate(client, 32, 2);
  if (profileDir !== undefined) {
    const rate = await peakRate(client, 256, 15);
    process.stdout.write(`profiled peak: ${rate.toFixed(0)} calls/s; profiles in ${profileDir}\n`);
    process.exit(await shutdown());
  }

  // what one `warden` command costs a person, against this running system, before any load
  const person = await home.addIdentity({ kind: "human", name: "bench-person" });
  const cliEnv = { WARDEN_HOME: homeDir, NATS_URL: server.url, LOG_LEVEL: "silent" };
  const cliRuns = quick ? 3 : 5;
  const cliHelp = await cliCpu(["help"], cliEnv, cliRuns);
  const cliApprovals = await cliCpu(["approvals", "--as", person.spec.name, "--json"], cliEnv, cliRuns);

  const notaryPid = procs.find((p) => p.name === "notary")?.child.pid;
  const notaryCpu0 = cpuSeconds(notaryPid);
  const seq0 = (await bus.jsm.streams.info(STREAM_CALLS)).state.last_seq;
  const raw = await rawPublishRate(bus, { messages: quick ? 20_000 : 100_000, window: 256, payloadBytes: 600 });
  // CPU per governed call, each process and all of them, over the closed-loop phase
  const cpuOf = () => new Map([...procs.map((p) => [p.name, cpuSeconds(p.child.pid)] as const), ["nats-server", cpuSeconds(server.process.pid)] as const]);
  const cpu0 = cpuOf();
  const completed0 = client.completed;
  const peak = await peakRate(client, 1024, seconds);
  const cpu1 = cpuOf();
  const peakCalls = Math.max(1, client.completed - completed0);
  const cpuRows: [string, string][] = [...cpu1].map(([name, s1]): [string, string] => [`  CPU per call at peak: ${name} (µs)`, (((s1 - (cpu0.get(name) ?? 0)) * 1e6) / peakCalls).toFixed(0)]);
  const cpuTotal = [...cpu1].reduce((sum, [name, s1]) => sum + s1 - (cpu0.get(name) ?? 0), 0);
  client.traceHops();
  const low = await fixedRate(client, 50, seconds / 2);
  const hopRows = hopBreakdown(client.hops!);
  client.hops = undefined;
  const half = await fixedRate(client, Math.max(1, Math.round(peak / 2)), seconds);
  // an agent in the clients account, as the SDK calls: request through the export, outcome through the call-read API
  const agentBus = await connectBus(loadBusConfig(await envOf({ kind: "agent", name: "bench-agent" })), "bench-agent");
  const agentOne = await agentSdkRate(agentBus, "bench-agent", 1, seconds / 2);
  const agentMany = await agentSdkRate(agentBus, "bench-agent", 256, seconds);
  await agentBus.close();

  const backlog = quick ? 20_000 : 100_000;
  const baseline = procs.reduce((sum, p) => sum + rssBytes(p.child.pid), 0) + rssBytes(server.process.pid);
  let peakRss = baseline;
  const all = [...procs.map((p) => ({ name: p.name, pid: p.child.pid })), { name: "nats-server", pid: server.process.pid }];
  const base = new Map(all.map((p) => [p.name, rssBytes(p.pid)]));
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

  const callsStored = ((await bus.jsm.streams.info(STREAM_CALLS)).state.last_seq - seq0) / EVENTS_PER_CALL;
  const notaryUsPerCall = ((cpuSeconds(notaryPid) - notaryCpu0) * 1e6) / Math.max(1, callsStored);
  const ceiling = raw / EVENTS_PER_CALL;
  const rows: [string, string][] = [
    ["raw JetStream appends/s (same stream settings)", raw.toFixed(0)],
    [`  ÷ ${EVENTS_PER_CALL} events per call = ceiling calls/s`, ceiling.toFixed(0)],
    ["end-to-end calls/s (closed loop, 1024 callers)", peak.toFixed(0)],
    ["ratio end-to-end / ceiling", `${((peak / ceiling) * 100).toFixed(1)}%`],
    ["CPU per governed call at peak, all Warden processes and nats-server (µs; 10 ms ticks)", ((cpuTotal * 1e6) / peakCalls).toFixed(0)],
    ...cpuRows,
    ["p50 / p99 latency at 50 calls/s (ms)", `${low.p50.toFixed(2)} / ${low.p99.toFixed(2)}`],
    [`p50 / p99 latency at half of peak, ${Math.round(peak / 2)} calls/s (ms)`, `${half.p50.toFixed(2)} / ${half.p99.toFixed(2)}`],
    ["  achieved rate at half of peak (completed calls/s)", half.achievedRate.toFixed(0)],
    ["agent SDK call(), clients account, one caller: p50 / p99 (ms)", `${agentOne.p50.toFixed(2)} / ${agentOne.p99.toFixed(2)}`],
    ["agent SDK call(), clients account, 256 callers: calls/s", `${agentMany.rate.toFixed(0)} (p50 ${agentMany.p50.toFixed(1)} ms, ${agentMany.failed} failed)`],
    [`backlog of ${backlog} calls: drained at calls/s`, drainRate.toFixed(0)],
    [`  calls in flight when the last was published`, String(inFlightAtEnd)],
    ["memory per 100k calls in flight (RSS growth, all processes)", `${(memPer100k / 1024 / 1024).toFixed(1)} MiB`],
    ...all.map((p): [string, string] => [`  peak RSS growth: ${p.name}`, `${(((peakBy.get(p.name) ?? 0) - (base.get(p.name) ?? 0)) / 1024 / 1024).toFixed(1)} MiB`]),
    ["failed calls", String(client.failed)],
    ["notary process CPU per call stored over the run (µs; 10 ms ticks)", notaryUsPerCall.toFixed(1)],
    [`CPU (user+sys) of \`warden help\`, median of ${cliRuns}`, cliCpuText(cliHelp)],
    [`CPU (user+sys) of \`warden approvals --as P --json\`, median of ${cliRuns}`, cliCpuText(cliApprovals)],
  ];
  rows.push(...hopRows);
  const width = Math.max(...rows.map(([k]) => k.length));
  process.stdout.write(`\nWarden bench (${quick ? "quick" : "full"}; ${new Date().toISOString()})\n`);
  for (const [k, v] of rows) process.stdout.write(`${k.padEnd(width)}  ${v}\n`);
  client.close();

  // replay and trace over what the run left on the stream; the services stop first
  await stopAll(procs);
  process.stdout.write("\nreplay and audit (services stopped)…\n");
  const replayRows = await replayBench(bus, { minEvents: 100_000, traces: quick ? 100 : 500, projectorSeconds: quick ? 10 : 30 });
  replayRows.push(...(await evidenceBench(bus, { messages: 50_000, eventsPerCall: EVENTS_PER_CALL, approverKeys: [approverPublicKey] })));
  const replayWidth = Math.max(...replayRows.map(([k]) => k.length));
  for (const [k, v] of replayRows) process.stdout.write(`${k.padEnd(replayWidth)}  ${v}\n`);
} finally {
  await shutdown();
}

async function shutdown(): Promise<number> {
  await bus.close();
  await stopAll(procs);
  await server.stop();
  rmSync(homeDir, { recursive: true, force: true });
  return 0;
}

/** Median time from the request until each event was seen by the client, at low load. */
function hopBreakdown(hops: Map<string, Map<string, number>>): [string, string][] {
  // the subject token each event is stored under (a result lives in the shared Outcome slot)
  const types = ["ToolCallRequested", "ToolArgsValidated", "ToolPolicyChecked", "ToolCallStarted", "Outcome"];
  return types.map((t) => {
    const values = [...hops.values()].flatMap((m) => (m.has(t) ? [m.get(t)!] : []));
    const s = summarize(values);
    return [`  at 50 calls/s, ${t} seen after (p50 ms)`, s.p50.toFixed(2)];
  });
}

async function waitForTool(b: typeof bus, name: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const reply = await requestRpc(b, SUBJECT_REGISTRY_LIST, {}, 1_000);
    if (reply.ok && JSON.stringify(reply.value).includes(`"${name}"`)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${name} was not registered within 30s`);
}
