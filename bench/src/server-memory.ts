#!/usr/bin/env node
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { appendEvent, callsStreamConfig, connectBus, ensureTopology, loadBusConfig, silentLogger, type Bus } from "@warden/bus";
import { newId, type WardenEvent } from "@warden/contracts/events";
import { STREAM_CALLS } from "@warden/contracts/subjects";
import { freePort, startNatsServer, type LocalNatsServer } from "@warden/local-nats";
import { openCursor, startProjectorService } from "@warden/projector";
import { syntheticCall } from "@warden/testing";

/**
 * nats-server memory per stored call: for each given server binary (and retention), a fresh store,
 * WARDEN_CALLS provisioned by `ensureTopology` as `warden up` does, N calls of five events on
 * Warden's subjects appended as the services append them, then the server's RSS after the
 * duplicate window has passed, and again after a restart (recovery rebuilds the per-subject state).
 * The projector runs as the calls are appended (its read models are KV buckets: one key per call,
 * rewritten as the call goes), unless `--stream-only`.
 *
 *   npm run bench:server-memory -- --binary /usr/sbin/nats-server --binary /tmp/nats-2.10/nats-server --calls 100000
 *
 * `--max-age-s 0,180` measures each retention; with a max age the run also waits until everything
 * has aged out and reports what the server keeps then (whether retention gives memory back). The
 * server inherits the environment: `GOMEMLIMIT=150MiB npm run bench:server-memory …` measures it
 * with that limit. Results and what they mean: docs/performance.md.
 */
const { values } = parseArgs({
  options: {
    binary: { type: "string", multiple: true },
    calls: { type: "string", default: "100000" },
    "max-age-s": { type: "string", default: "0" },
    window: { type: "string", default: "256" },
    // past the stream's 120 s duplicate window, whose message ids the server keeps in memory
    "settle-s": { type: "string", default: "135" },
    "stream-only": { type: "boolean", default: false },
    json: { type: "boolean", default: false },
  },
});
const binaries = values.binary ?? ["nats-server"];
const calls = Number(values.calls);
const ages = values["max-age-s"].split(",").map(Number);
const window = Number(values.window);
const settleS = Number(values["settle-s"]);
const project = !values["stream-only"];
const MIB = 1024 * 1024;
const PER = 100_000;

interface Memory {
  readonly rss: number;
  readonly hwm: number;
  /** The server's live Go heap (HeapAlloc right after a collection): what RSS comes down to once the runtime returns the rest. */
  readonly liveHeap: number;
}

interface Row {
  readonly server: string;
  readonly maxAgeS: number;
  readonly projected: boolean;
  readonly calls: number;
  readonly storedMessages: number;
  readonly storedBytes: number;
  readonly appendsPerS: number;
  readonly empty: Memory;
  readonly settled: Memory;
  readonly restarted: Memory;
  readonly storedMessagesAfterRestart: number;
  readonly agedOut?: Memory;
  readonly agedOutRestarted?: Memory;
}

async function memoryOf(server: Started): Promise<Memory> {
  const status = readFileSync(`/proc/${server.server.process.pid}/status`, "utf8");
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) * 1024;
  const rss = kb("VmRSS");
  const hwm = kb("VmHWM");
  // the runtime's MemStats, printed at the end of the heap profile's text form (gc=1 collects first)
  const heap = await (await fetch(`http://127.0.0.1:${server.profPort}/debug/pprof/heap?gc=1&debug=1`)).text();
  return { rss, hwm, liveHeap: Number(/# HeapAlloc = (\d+)/.exec(heap)?.[1] ?? 0) };
}

const sleep = (s: number) => new Promise((r) => setTimeout(r, s * 1000));
const log = (line: string) => process.stderr.write(`${line}\n`);

interface Started {
  readonly server: LocalNatsServer;
  readonly bus: Bus;
  readonly profPort: number;
}

async function start(binary: string, storeDir: string, maxAgeS: number): Promise<Started> {
  const [port, profPort] = [await freePort(), await freePort()];
  const configFile = join(storeDir, "server.conf");
  // a plain server (no auth: it does not change what the stream costs) with the profiling port for heap stats
  writeFileSync(configFile, `listen: "127.0.0.1:${port}"\nprof_port: ${profPort}\njetstream { store_dir: ${JSON.stringify(join(storeDir, "js"))} }\n`);
  const server = await startNatsServer({ binary, configFile, port, storeDir });
  const bus = await connectBus(loadBusConfig({ NATS_URL: server.url, WARDEN_STREAM_MAX_AGE_S: String(maxAgeS) }), "server-memory");
  return { server, bus, profPort };
}

async function stop(s: Started): Promise<void> {
  await s.bus.close();
  await s.server.stop();
}

/** A call's five events as the services write them (request, validated, checked, started, outcome). */
function callEvents(i: number): WardenEvent[] {
  return syntheticCall({ callId: newId(), outcome: "succeeded", runId: `run-${i % 100}`, tool: "bench.echo", args: { n: i }, at: new Date() });
}

/** Appends `count` calls with `window` calls in flight, each call's events in order, as Warden's stages would. */
async function appendCalls(bus: Bus, count: number): Promise<number> {
  let next = 0;
  const started = performance.now();
  let reported = started;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      for (const event of callEvents(i)) {
        const r = await appendEvent(bus, event);
        if (r.status !== "written") throw new Error(`event ${event.eventId} not written: ${r.status}`);
      }
      if (performance.now() - reported > 10_000) {
        reported = performance.now();
        log(`  ${i + 1} calls appended`);
      }
    }
  };
  await Promise.all(Array.from({ length: window }, worker));
  return (count * 5) / ((performance.now() - started) / 1000);
}

async function streamState(bus: Bus): Promise<{ messages: number; bytes: number }> {
  const { state } = await bus.jsm.streams.info(STREAM_CALLS);
  return { messages: state.messages, bytes: state.bytes };
}

async function measure(binary: string, maxAgeS: number): Promise<Row> {
  const storeDir = mkdtempSync(join(tmpdir(), "warden-server-memory-"));
  try {
    let s = await start(binary, storeDir, maxAgeS);
    const version = spawnSync(binary, ["--version"], { encoding: "utf8" }).stdout.trim().replace(/^nats-server: /, "");
    await ensureTopology(s.bus);
    const config = (await s.bus.jsm.streams.info(STREAM_CALLS)).config;
    if (config.max_age !== callsStreamConfig(s.bus).max_age) throw new Error("WARDEN_CALLS was not provisioned as configured");
    await sleep(5);
    const empty = await memoryOf(s);
    log(`${version}, max age ${maxAgeS} s: appending ${calls} calls`);
    const projector = project ? await startProjectorService({ bus: s.bus, log: silentLogger() }) : undefined;
    const appendsPerS = await appendCalls(s.bus, calls);
    if (projector !== undefined) {
      const last = (await s.bus.jsm.streams.info(STREAM_CALLS)).state.last_seq;
      const cursor = await openCursor(s.bus);
      log("  waiting for the projector");
      while ((await cursor.read()) < last) await sleep(1);
      await projector.stop();
    }
    log(`  settling ${settleS} s`);
    await sleep(settleS);
    const settled = await memoryOf(s);
    const stored = await streamState(s.bus);
    await stop(s);
    s = await start(binary, storeDir, maxAgeS);
    await sleep(10);
    const restarted = await memoryOf(s);
    const storedAfterRestart = await streamState(s.bus);
    let agedOut: Memory | undefined;
    let agedOutRestarted: Memory | undefined;
    if (maxAgeS > 0) {
      log(`  waiting for every event to age out`);
      while ((await streamState(s.bus)).messages > 0) await sleep(5);
      await sleep(settleS);
      agedOut = await memoryOf(s);
      await stop(s);
      s = await start(binary, storeDir, maxAgeS);
      await sleep(10);
      agedOutRestarted = await memoryOf(s);
    }
    await stop(s);
    return {
      server: version,
      maxAgeS,
      projected: project,
      calls,
      storedMessages: stored.messages,
      storedBytes: stored.bytes,
      appendsPerS,
      empty,
      settled,
      restarted,
      storedMessagesAfterRestart: storedAfterRestart.messages,
      ...(agedOut === undefined ? {} : { agedOut }),
      ...(agedOutRestarted === undefined ? {} : { agedOutRestarted }),
    };
  } finally {
    rmSync(storeDir, { recursive: true, force: true });
  }
}

/** MiB per 100k stored calls, over what the server held with the topology and nothing stored. */
function perHundredK(bytes: number, emptyBytes: number, storedCalls: number): string {
  return storedCalls === 0 ? "-" : (((bytes - emptyBytes) / MIB) * (PER / storedCalls)).toFixed(0);
}

const rows: Row[] = [];
for (const binary of binaries) {
  for (const age of ages) {
    rows.push(await measure(binary, age));
    // a long run shows each point as it is measured
    log(`  ${JSON.stringify(rows.at(-1))}`);
  }
}

if (values.json) process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
else {
  const mib = (n: number) => (n / MIB).toFixed(0);
  const lines = [
    ["server", "max_age s", "projector", "calls", "stream MiB", "appends/s", "RSS empty", "settled: RSS (peak)", "live heap", "restarted: RSS", "per 100k: RSS", "live heap", "restarted", "aged out: RSS / restarted"],
    ...rows.map((r) => {
      const storedCalls = r.storedMessages / 5;
      return [
        r.server,
        String(r.maxAgeS),
        r.projected ? "yes" : "no",
        String(storedCalls),
        mib(r.storedBytes),
        r.appendsPerS.toFixed(0),
        mib(r.empty.rss),
        `${mib(r.settled.rss)} (${mib(r.settled.hwm)})`,
        mib(r.settled.liveHeap),
        mib(r.restarted.rss),
        perHundredK(r.settled.rss, r.empty.rss, storedCalls),
        perHundredK(r.settled.liveHeap, r.empty.liveHeap, storedCalls),
        perHundredK(r.restarted.rss, r.empty.rss, r.storedMessagesAfterRestart / 5),
        r.agedOut === undefined ? "-" : `${mib(r.agedOut.rss)} / ${mib(r.agedOutRestarted?.rss ?? 0)}`,
      ];
    }),
  ];
  const widths = lines[0]!.map((_, c) => Math.max(...lines.map((l) => l[c]!.length)));
  for (const l of lines) process.stdout.write(`${l.map((cell, c) => cell.padEnd(widths[c]!)).join("  ")}\n`);
  process.stdout.write("MiB; per 100k: (value - the empty server's) per 100,000 stored calls of 5 events\n");
}
