#!/usr/bin/env node
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { appendEvent, callsStreamConfig, connectBus, ensureTopology, loadBusConfig, type Bus } from "@warden/bus";
import { newId, STREAM_CALLS, type WardenEvent } from "@warden/contracts";
import { startNatsServer, type LocalNatsServer } from "@warden/local-nats";
import { syntheticCall } from "@warden/testing";

/**
 * nats-server memory per stored call: for each given server binary (and retention), a fresh store,
 * WARDEN_CALLS provisioned by `ensureTopology` as `warden up` does, N calls of five events on
 * Warden's subjects appended as the services append them, then the server's RSS after the
 * duplicate window has passed, and again after a restart (recovery rebuilds the per-subject state).
 *
 *   npm run bench:server-memory -- --binary /usr/sbin/nats-server --binary /tmp/nats-2.10/nats-server --calls 100000
 *
 * `--max-age-s 0,180` measures each retention; with a max age the run also waits until everything
 * has aged out and reports what the server keeps then (a Go map never shrinks).
 */
const { values } = parseArgs({
  options: {
    binary: { type: "string", multiple: true },
    calls: { type: "string", default: "100000" },
    "max-age-s": { type: "string", default: "0" },
    window: { type: "string", default: "256" },
    // past the stream's 120 s duplicate window, whose message ids the server keeps in memory
    "settle-s": { type: "string", default: "135" },
    json: { type: "boolean", default: false },
  },
});
const binaries = values.binary ?? ["nats-server"];
const calls = Number(values.calls);
const ages = values["max-age-s"].split(",").map(Number);
const window = Number(values.window);
const settleS = Number(values["settle-s"]);
const MIB = 1024 * 1024;
const PER = 100_000;

interface Memory {
  readonly rss: number;
  readonly hwm: number;
}

interface Row {
  readonly server: string;
  readonly maxAgeS: number;
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

function memoryOf(server: LocalNatsServer): Memory {
  const status = readFileSync(`/proc/${server.process.pid}/status`, "utf8");
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) * 1024;
  return { rss: kb("VmRSS"), hwm: kb("VmHWM") };
}

const sleep = (s: number) => new Promise((r) => setTimeout(r, s * 1000));
const log = (line: string) => process.stderr.write(`${line}\n`);

async function start(binary: string, storeDir: string, maxAgeS: number): Promise<{ server: LocalNatsServer; bus: Bus }> {
  const server = await startNatsServer({ binary, storeDir });
  const bus = await connectBus(loadBusConfig({ NATS_URL: server.url, WARDEN_STREAM_MAX_AGE_S: String(maxAgeS) }), "server-memory");
  return { server, bus };
}

async function stop(s: { server: LocalNatsServer; bus: Bus }): Promise<void> {
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
    const empty = memoryOf(s.server);
    log(`${version}, max age ${maxAgeS} s: appending ${calls} calls`);
    const appendsPerS = await appendCalls(s.bus, calls);
    log(`  settling ${settleS} s`);
    await sleep(settleS);
    const settled = memoryOf(s.server);
    const stored = await streamState(s.bus);
    await stop(s);
    s = await start(binary, storeDir, maxAgeS);
    await sleep(10);
    const restarted = memoryOf(s.server);
    const storedAfterRestart = await streamState(s.bus);
    let agedOut: Memory | undefined;
    let agedOutRestarted: Memory | undefined;
    if (maxAgeS > 0) {
      log(`  waiting for every event to age out`);
      while ((await streamState(s.bus)).messages > 0) await sleep(5);
      await sleep(settleS);
      agedOut = memoryOf(s.server);
      await stop(s);
      s = await start(binary, storeDir, maxAgeS);
      await sleep(10);
      agedOutRestarted = memoryOf(s.server);
    }
    await stop(s);
    return {
      server: version,
      maxAgeS,
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

/** MiB of RSS per 100k stored calls, over what the server held with the topology and nothing stored. */
function perHundredK(m: Memory, empty: Memory, storedCalls: number): string {
  return storedCalls === 0 ? "-" : (((m.rss - empty.rss) / MIB) * (PER / storedCalls)).toFixed(0);
}

const rows: Row[] = [];
for (const binary of binaries) for (const age of ages) rows.push(await measure(binary, age));

if (values.json) process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
else {
  const mib = (n: number) => (n / MIB).toFixed(0);
  const lines = [
    ["server", "max_age s", "calls stored", "stream MiB", "appends/s", "RSS empty", "RSS settled (peak)", "after restart", "MiB/100k settled", "MiB/100k restarted", "aged out / restarted"],
    ...rows.map((r) => {
      const storedCalls = r.storedMessages / 5;
      return [
        r.server,
        String(r.maxAgeS),
        String(storedCalls),
        mib(r.storedBytes),
        r.appendsPerS.toFixed(0),
        mib(r.empty.rss),
        `${mib(r.settled.rss)} (${mib(r.settled.hwm)})`,
        mib(r.restarted.rss),
        perHundredK(r.settled, r.empty, storedCalls),
        perHundredK(r.restarted, r.empty, r.storedMessagesAfterRestart / 5),
        r.agedOut === undefined ? "-" : `${mib(r.agedOut.rss)} / ${mib(r.agedOutRestarted?.rss ?? 0)}`,
      ];
    }),
  ];
  const widths = lines[0]!.map((_, c) => Math.max(...lines.map((l) => l[c]!.length)));
  for (const l of lines) process.stdout.write(`${l.map((cell, c) => cell.padEnd(widths[c]!)).join("  ")}\n`);
  process.stdout.write(`RSS in MiB; MiB/100k is (RSS - RSS empty) per 100,000 stored calls of 5 events\n`);
}
